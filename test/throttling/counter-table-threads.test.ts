import t from 'tap';
import { Worker } from 'node:worker_threads';
import { CounterTable, MAX_VALUE, NOTE_OVER_QUOTA, NOTE_THROTTLED, W_NOTE, createSharedCounters, unpack } from '../../engine/throttling/counter-table.js';
import { fingerprint, hashOf } from '../../engine/throttling/hash.js';

const modUrl = new URL('../../engine/throttling/counter-table.ts', import.meta.url).href;
const hashUrl = new URL('../../engine/throttling/hash.ts', import.meta.url).href;

interface Hammering {
  readonly calls: number;
  readonly op?: 'acquire' | 'acquireUnder' | 'add' | 'release' | 'note';
  readonly limit?: number;
  readonly amount?: number;
  /** A fixed window number; else the current one of hour-long windows. */
  readonly win?: number;
  /** A gate the threads of a race pass together (race() makes it). */
  readonly start?: SharedArrayBuffer;
}

interface Hammered {
  readonly admitted: number[];
  readonly claimed: number[];
  readonly won: Uint8Array;
}

function hammer(shared: unknown, keys: string[], o: Hammering): Promise<Hammered> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./workers/hammer.mjs', import.meta.url), { workerData: { modUrl, hashUrl, shared, keys, windowMs: 3_600_000, ...o } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

/** Two threads on the same counters, released together once both are up. */
async function race(shared: unknown, keys: string[], a: Hammering, b: Hammering): Promise<[Hammered, Hammered]> {
  const start = new SharedArrayBuffer(8);
  const gate = new Int32Array(start);
  const done = Promise.all([hammer(shared, keys, { ...a, start }), hammer(shared, keys, { ...b, start })]);
  while (Atomics.load(gate, 0) < 2) await new Promise((r) => setTimeout(r, 5));
  Atomics.store(gate, 1, 1);
  Atomics.notify(gate, 1);
  return done;
}

/** The table's slot of each key (claimed by the threads, or here when new). */
function slotsOf(table: CounterTable, keys: string[]): number[] {
  return keys.map((k) => table.slotOf(hashOf(k)));
}

t.test('threads racing on shared counters admit exactly the limit, and claim each key once', async (t) => {
  const shared = createSharedCounters(1024);
  const keys = Array.from({ length: 20 }, (_, i) => `k\u001f${i}`);
  const limit = 10_000;
  // Four threads, each trying 1.5 x the limit on every key: every admission is a compare-and-swap race.
  const results = await Promise.all([0, 1, 2, 3].map(() => hammer(shared, keys, { calls: 15_000 * keys.length, limit })));
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

t.test('each operation of the one compare-and-swap loop', async (t) => {
  const table = new CounterTable(createSharedCounters(1024));
  const calls = table.slotOf(hashOf('calls'));
  t.ok(table.acquire(calls, 5, 10, 4));
  t.equal(table.count, 4, 'acquire: the count after');
  t.ok(table.acquire(calls, 5, 10, 6), 'up to the limit exactly');
  t.notOk(table.acquire(calls, 5, 10, 1), 'not past it');
  t.equal(table.count, 10, 'refused: the count as it is');
  t.equal(table.countIn(calls, 5), 10);

  const bytes = table.slotOf(hashOf('bytes'));
  t.ok(table.acquireUnder(bytes, 5, 10, 9));
  t.ok(table.acquireUnder(bytes, 5, 10, 500), 'acquireUnder: under the limit before, so admitted whole');
  t.equal(table.count, 509);
  t.notOk(table.acquireUnder(bytes, 5, 10, 1), 'at or over the limit: refused');
  t.equal(table.count, 509);

  const sum = table.slotOf(hashOf('sum'));
  t.equal(table.add(sum, 5, 3), 3, 'add: no limit, the count after');
  t.equal(table.add(sum, 5, MAX_VALUE), MAX_VALUE, 'a word holds at most MAX_VALUE');
  t.equal(table.countIn(sum, 5), MAX_VALUE);
  t.equal(table.add(sum, 6, 2), 2, 'a new window starts from 0');

  table.release(calls, 5, 4);
  t.equal(table.countIn(calls, 5), 6, 'release: gives back');
  t.equal(table.count, 2, 'and leaves the count of the last acquire or add alone');
  table.release(calls, 4, 1);
  t.equal(table.countIn(calls, 5), 6, 'a release for another window changes nothing');
  table.release(calls, 5, 100);
  t.equal(table.countIn(calls, 5), 0, 'never below 0');

  t.ok(table.acquire(calls, 5, 10, 3));
  t.ok(table.note(calls, 5, NOTE_THROTTLED), 'note: the first caller sets the bit');
  t.notOk(table.note(calls, 5, NOTE_THROTTLED), 'once per window');
  t.ok(table.note(calls, 5, NOTE_OVER_QUOTA), 'another bit is another note');
  t.same(unpack(table.word(calls, W_NOTE)), { tag: 5, value: NOTE_THROTTLED | NOTE_OVER_QUOTA });
  t.equal(table.countIn(calls, 5), 3, 'notes are in their own word: the count is untouched');
  t.equal(table.count, 3);
  t.ok(table.note(calls, 6, NOTE_THROTTLED), 'a new window: the bits start clear');
  t.same(unpack(table.word(calls, W_NOTE)), { tag: 6, value: NOTE_THROTTLED });
});

t.test('two threads racing each operation: no count lost, none counted twice', async (t) => {
  const keys = Array.from({ length: 8 }, (_, i) => `race\u001f${i}`);
  const per = 20_000;
  const calls = per * keys.length;
  const sum = (r: Hammered, k: number): number => r.admitted[k]!;

  await t.test('acquire: exactly the limit', async (t) => {
    const shared = createSharedCounters(1024);
    const limit = 30_000;
    const [a, b] = await race(shared, keys, { op: 'acquire', calls, limit, win: 1 }, { op: 'acquire', calls, limit, win: 1 });
    const table = new CounterTable(shared);
    const slots = slotsOf(table, keys);
    t.same(keys.map((_, k) => sum(a, k) + sum(b, k)), keys.map(() => limit), 'admitted');
    t.same(slots.map((s) => table.countIn(s, 1)), keys.map(() => limit), 'counted');
    t.equal(a.claimed.length + b.claimed.length, keys.length, 'each key claimed once');
  });

  await t.test('acquireUnder: every admission saw the count under the limit', async (t) => {
    const shared = createSharedCounters(1024);
    const limit = 100_000;
    const amount = 7;
    const [a, b] = await race(shared, keys, { op: 'acquireUnder', calls, limit, amount, win: 1 }, { op: 'acquireUnder', calls, limit, amount, win: 1 });
    const table = new CounterTable(shared);
    const counted = slotsOf(table, keys).map((s) => table.countIn(s, 1));
    t.same(counted, keys.map((_, k) => (sum(a, k) + sum(b, k)) * amount), 'the count is what was admitted');
    t.ok(counted.every((c) => c >= limit && c < limit + amount), `each count stops within one call of ${limit}: ${counted.join(', ')}`);
  });

  await t.test('add: every add counted once', async (t) => {
    const shared = createSharedCounters(1024);
    await race(shared, keys, { op: 'add', calls, win: 1 }, { op: 'add', calls, win: 1 });
    const table = new CounterTable(shared);
    t.same(slotsOf(table, keys).map((s) => table.countIn(s, 1)), keys.map(() => 2 * per));
  });

  await t.test('release: every release given back once', async (t) => {
    const shared = createSharedCounters(1024);
    const table = new CounterTable(shared);
    const slots = slotsOf(table, keys);
    for (const s of slots) table.add(s, 1, 2 * per + 5);
    await race(shared, keys, { op: 'release', calls, win: 1 }, { op: 'release', calls, win: 1 });
    t.same(slots.map((s) => table.countIn(s, 1)), keys.map(() => 5));
  });

  await t.test('add against release on the same words', async (t) => {
    const shared = createSharedCounters(1024);
    const table = new CounterTable(shared);
    const slots = slotsOf(table, keys);
    for (const s of slots) table.add(s, 1, per);
    await race(shared, keys, { op: 'add', calls, win: 1 }, { op: 'release', calls, win: 1 });
    t.same(slots.map((s) => table.countIn(s, 1)), keys.map(() => per), 'what was added, less what was given back');
  });

  await t.test('note: each key\'s bit set by exactly one thread', async (t) => {
    // Many keys, one window (a NOTE word remembers only its latest window), three rounds: the threads go
    // over the keys in the same order, so they race for each key's first note.
    const many = Array.from({ length: 4000 }, (_, i) => `note\u001f${i}`);
    const shared = createSharedCounters(8192);
    const rounds = 3 * many.length;
    const [a, b] = await race(shared, many, { op: 'note', calls: rounds, win: 1 }, { op: 'note', calls: rounds, win: 1 });
    const firsts = new Array<number>(many.length).fill(0);
    for (let i = 0; i < rounds; i++) firsts[i % many.length]! += a.won[i]! + b.won[i]!;
    t.equal(firsts.filter((n) => n > 1).length, 0, 'no key\'s note reported twice');
    t.equal(firsts.filter((n) => n === 0).length, 0, 'none lost');
  });
});
