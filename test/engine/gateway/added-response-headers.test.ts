import t from 'tap';
import pino from 'pino';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml } from '../../helpers/home.js';
import { echoBackend, faultOf, request } from '../../helpers/backends.js';
import { answering, inject, phaseOf, testRuntime } from '../../helpers/inject.js';
import { ownIoThread } from '../../helpers/own-io-thread.js';
import { PhaseResult } from '../../../engine/kernel/phase.js';
import { fieldName } from '../../../transport/field-values.js';
import { numberField } from '../../../transport/number-lines.js';
import type { Call } from '../../../engine/kernel/call.js';

// Response headers phases add: a number under a checked name (the X-RateLimit-* fields) is written without
// the head being checked again; any header added from the call's own strings still makes the whole head be
// checked, whatever came before or after it, and one that no head may carry is never written.

const NUMBER = numberField('X-Count');
const addNumber = (call: Call): number => { call.addResponseNumber(NUMBER, 42); return PhaseResult.CONTINUE; };
const addUnsafe = (call: Call): number => { call.addResponseHeaders('x-bad', 'a\r\nset-cookie: injected=1'); return PhaseResult.CONTINUE; };

t.test('a checked name is the only way to one: a name with a separator or a control throws where it is made', async (t) => {
  t.equal(fieldName('X-RateLimit-Limit'), 'X-RateLimit-Limit');
  for (const bad of ['', 'X Limit', 'X:Limit', 'X-Limit\r\n', 'Ä']) t.throws(() => fieldName(bad), /not a header name/, JSON.stringify(bad));
});

t.test('a local answer carries a number a phase added', async (t) => {
  const r = inject(testRuntime([phaseOf('n', addNumber), answering(200)]), { path: '/x' });
  t.equal(r.client.written.status, 200);
  t.same(r.client.written.headers.find(([k]) => k === 'x-count'), ['x-count', '42']);
});

t.test('numbers added together and one by one all reach the answer, in the order they were added', async (t) => {
  const OTHER = numberField('X-Other');
  const addThree = (call: Call): number => { call.addResponseNumbers([OTHER, 1, NUMBER, 2, OTHER, 3]); return PhaseResult.CONTINUE; };
  for (const phases of [[addThree, addNumber], [addNumber, addThree]]) {
    const r = inject(testRuntime([...phases.map((p, i) => phaseOf(`p${i}`, p)), answering(200)]), { path: '/x' });
    const numbers = r.client.written.headers.filter(([k]) => k === 'x-count' || k === 'x-other').map(([k, v]) => `${k}=${v}`);
    t.same(numbers, phases[0] === addThree ? ['x-other=1', 'x-count=2', 'x-other=3', 'x-count=42'] : ['x-count=42', 'x-other=1', 'x-count=2', 'x-other=3']);
  }
});

t.test('a local answer with an unwritable added header gets the built-in fault, whether numbers came before or after it', async (t) => {
  for (const phases of [[addNumber, addUnsafe], [addUnsafe, addNumber]]) {
    const r = inject(testRuntime([...phases.map((p, i) => phaseOf(`p${i}`, p)), answering(200)]), { path: '/x' });
    t.equal(r.client.written.status, 500);
    t.equal(r.fault?.code, 101510);
    t.notOk(r.client.written.headers.some(([k]) => k === 'set-cookie' || k === 'x-bad'), 'nothing of the bad value was written');
  }
});

t.test('a backend answer: numbers pass through, an unwritable added header is refused however the phases ordered them', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }),
  });
  // An io thread of this node in this process, with the phases under test last.
  const { thread, port } = await ownIoThread(t, s, pino({ level: 'silent' }));
  const base = thread.pipeline;
  const use = (steps: ((c: Call) => number)[]): void => {
    thread.pipeline = { names: [...base.names, ...steps.map((_, i) => `test-${i}`)], steps: [...base.steps, ...steps] as typeof base.steps };
  };
  await thread.listen();
  const url = `http://127.0.0.1:${port}/echo/1.0.0/x`;

  use([addNumber]);
  let r = await request(url);
  t.equal(r.status, 200);
  t.equal(r.headers['x-count'], '42', 'the number reached the client');

  for (const steps of [[addNumber, addUnsafe], [addUnsafe, addNumber]]) {
    use(steps);
    r = await request(url);
    t.equal(r.status, 500);
    t.equal(faultOf(r)?.code, 101510);
    t.equal(r.headers['set-cookie'], undefined, 'the injected field never reached the client');
  }
});
