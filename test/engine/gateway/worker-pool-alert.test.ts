import t from 'tap';
import { pino } from 'pino';
import { WorkerPool, Admission } from '../../../engine/gateway/worker-pool.js';

function recordingLogger() {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => { lines.push(String(JSON.parse(l).msg)); } });
  return { log, lines };
}

const idle = { onSlot() {} };

t.test('the SYSTEM ALERT is logged when more than half of the pool stayed busy over the last minute, once a minute', async (t) => {
  const { log, lines } = recordingLogger();
  let now = 0;
  const pool = new WorkerPool({ core: 4, max: 4, queueLength: 0 }, log, () => now);
  t.teardown(() => pool.stop());
  for (let i = 0; i < 3; i++) t.equal(pool.admit(idle), Admission.ADMITTED);
  // 75% busy: after 40 s the minute's average is 40 * 0.75 / 60 = 50%: not yet more than half.
  for (let s = 0; s < 40; s++) { now += 1000; pool.sample(); }
  t.equal(lines.length, 0, 'no alert at exactly half');
  now += 1000; pool.sample();
  t.equal(lines.length, 1, 'alert once past half');
  t.match(lines[0], /^SYSTEM ALERT: 51% of the worker threads were in BLOCKED state during last minute!$/);
  for (let s = 0; s < 59; s++) { now += 1000; pool.sample(); }
  t.equal(lines.length, 1, 'not again within the minute');
  now += 1000; pool.sample();
  t.equal(lines.length, 2, 'again after a minute');
  t.match(lines[1], /75% of the worker threads/);
});

t.test('admission: max at once, a bounded queue, release hands the slot to the oldest waiting message', async (t) => {
  const { log } = recordingLogger();
  const pool = new WorkerPool({ core: 1, max: 1, queueLength: 2 }, log);
  t.teardown(() => pool.stop());
  const started: string[] = [];
  const m = (name: string) => ({ onSlot() { started.push(name); } });
  t.equal(pool.admit(m('a')), Admission.ADMITTED);
  const b = m('b');
  t.equal(pool.admit(b), Admission.QUEUED);
  t.equal(pool.admit(m('c')), Admission.QUEUED);
  t.equal(pool.admit(m('d')), Admission.REJECTED, 'queue of 2 is full');
  t.ok(pool.withdraw(b), 'a waiting message can leave');
  pool.release();
  t.same(started, ['c'], 'the next waiting one gets the slot');
  pool.release();
  t.equal(pool.active, 0);
});
