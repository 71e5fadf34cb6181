import t from 'tap';
import { Worker } from 'node:worker_threads';
import { CounterTable, createSharedCounters } from '../../engine/throttling/counter-table.js';
import { fingerprint, hashOf } from '../../engine/throttling/hash.js';

const modUrl = new URL('../../engine/throttling/counter-table.ts', import.meta.url).href;
const hashUrl = new URL('../../engine/throttling/hash.ts', import.meta.url).href;

function hammer(shared: unknown, keys: string[], calls: number, limit: number): Promise<{ admitted: number[]; claimed: number[] }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./workers/hammer.mjs', import.meta.url), { workerData: { modUrl, hashUrl, shared, keys, calls, limit, windowMs: 3_600_000 } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

t.test('threads racing on shared counters admit exactly the limit, and claim each key once', async (t) => {
  const shared = createSharedCounters(1024);
  const keys = Array.from({ length: 20 }, (_, i) => `k\u001f${i}`);
  const limit = 10_000;
  // Four threads, each trying 1.5 x the limit on every key: every admission is a compare-and-swap race.
  const results = await Promise.all([0, 1, 2, 3].map(() => hammer(shared, keys, 15_000 * keys.length, limit)));
  for (let k = 0; k < keys.length; k++) {
    const total = results.reduce((n, r) => n + r.admitted[k]!, 0);
    if (total !== limit) t.fail(`key ${k}: ${total} admitted, limit ${limit}`);
  }
  t.pass('every key admitted exactly its limit');
  const claims = results.flatMap((r) => r.claimed);
  t.equal(claims.length, keys.length, 'each key claimed one slot, by one thread');
  t.equal(new Set(claims).size, keys.length);
  const table = new CounterTable(shared);
  t.equal(table.claimedSlots, keys.length);
});

t.test('window roll-over, release, eviction and a full neighbourhood', async (t) => {
  const table = new CounterTable(createSharedCounters(1024));
  const fp = fingerprint('roll');
  const slot = table.slotOf(hashOf('roll'));
  t.ok(table.claimed);
  t.ok(table.acquire(slot, 100, 2, 1));
  t.ok(table.acquire(slot, 100, 2, 1));
  t.notOk(table.acquire(slot, 100, 2, 1), 'the limit');
  t.equal(table.count, 2);
  t.ok(table.acquire(slot, 101, 2, 1), 'the next window starts at 0');
  t.equal(table.countIn(slot, 101), 1);
  table.release(slot, 100, 1);
  t.equal(table.countIn(slot, 101), 1, 'a release for a past window changes nothing');
  table.release(slot, 101, 1);
  t.equal(table.countIn(slot, 101), 0);
  t.ok(table.note(slot, 101, 1), 'the first note of a window');
  t.notOk(table.note(slot, 101, 1), 'only once');
  t.ok(table.note(slot, 102, 1), 'and again in the next window');

  t.ok(table.evict(slot, fp));
  t.equal(table.claimedSlots, 0);
  const again = table.slotOf(hashOf('roll'));
  t.ok(table.claimed, 'an evicted key is claimed afresh');
  t.equal(table.countIn(again, 101), 0, 'with no count left over');

  // Fill every slot: the next new key finds no room and is not counted.
  const small = new CounterTable(createSharedCounters(1024));
  let i = 0;
  while (small.claimedSlots < 1024 && i < 100_000) small.slotOf(hashOf(`fill${i++}`));
  t.equal(small.slotOf(hashOf('one more')), -1, 'a full table refuses the claim');
  t.ok(small.takeFullCount() > 0, 'and counts the refusal for the main thread\'s warning');
});
