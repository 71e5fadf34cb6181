import t from 'tap';
import { Worker } from 'node:worker_threads';
import { CounterTable, MAX_VALUE, NOTE_OVER_QUOTA, NOTE_THROTTLED, W_NOTE, createSharedCounters, unpack, type SharedCounters } from '../../engine/throttling/counter-table.js';
import { fingerprint, hashOf } from '../../engine/throttling/hash.js';

const modUrl = new URL('../../engine/throttling/counter-table.ts', import.meta.url).href;
const hashUrl = new URL('../../engine/throttling/hash.ts', import.meta.url).href;

interface Job {
  readonly shared: SharedCounters;
  readonly keys: readonly string[];
  readonly calls: number;
  readonly op?: 'acquire' | 'acquireUnder' | 'add' | 'release' | 'note';
  readonly limit?: number;
  readonly amount?: number;
  /** A fixed window number; else the current one of hour-long windows. */
  readonly win?: number;
}

interface Hammered {
  readonly admitted: number[];
  readonly claimed: number[];
  readonly won: Uint8Array;
}

/** A thread doing `jobs` one after the other; with a gate, each job starts with the other thread's. */
function hammer(jobs: readonly Job[], gate?: SharedArrayBuffer): Promise<Hammered[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./workers/hammer.mjs', import.meta.url), { workerData: { modUrl, hashUrl, jobs, gate } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

/** Two threads racing through pairs of jobs, each pair on the same counters and started together. */
async function races(pairs: readonly (readonly [Job, Job])[]): Promise<[Hammered, Hammered][]> {
  const gate = new SharedArrayBuffer(4 * pairs.length);
  const [a, b] = await Promise.all([hammer(pairs.map((p) => p[0]), gate), hammer(pairs.map((p) => p[1]), gate)]);
  return pairs.map((_, i) => [a[i]!, b[i]!]);
}

/** The table's slot of each key (claimed by the threads, or here when new). */
function slotsOf(table: CounterTable, keys: readonly string[]): number[] {
  return keys.map((k) => table.slotOf(hashOf(k)));
}

t.test('threads racing on shared counters admit exactly the limit, and claim each key once', async (t) => {
  const shared = createSharedCounters(1024);
  const keys = Array.from({ length: 20 }, (_, i) => `k\u001f${i}`);
  const limit = 10_000;
  // Four threads, each trying 1.5 x the limit on every key: every admission is a compare-and-swap race.
  const results = (await Promise.all([0, 1, 2, 3].map(() => hammer([{ shared, keys, calls: 15_000 * keys.length, limit }])))).map((r) => r[0]!);
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
  const limit = 30_000;
  const bytesLimit = 100_000;
  const amount = 7;
  /** Counters whose keys already count `n` in window 1. */
  const holding = (n: number): SharedCounters => {
    const shared = createSharedCounters(1024);
    const table = new CounterTable(shared);
    for (const slot of slotsOf(table, keys)) table.add(slot, 1, n);
    return shared;
  };
  const both = (job: Job): [Job, Job] => [job, job];
  // Notes: many keys in one window (a NOTE word remembers only its latest window), three rounds; the threads
  // go over the keys in the same order, so they race for each key's first note.
  const many = Array.from({ length: 4000 }, (_, i) => `note\u001f${i}`);
  const jobs: Record<string, [Job, Job]> = {
    acquire: both({ shared: createSharedCounters(1024), keys, op: 'acquire', calls, limit, win: 1 }),
    acquireUnder: both({ shared: createSharedCounters(1024), keys, op: 'acquireUnder', calls, limit: bytesLimit, amount, win: 1 }),
    add: both({ shared: createSharedCounters(1024), keys, op: 'add', calls, win: 1 }),
    release: both({ shared: holding(2 * per + 5), keys, op: 'release', calls, win: 1 }),
    mixed: ((shared) => [{ shared, keys, op: 'add', calls, win: 1 }, { shared, keys, op: 'release', calls, win: 1 }] as [Job, Job])(holding(per)),
    note: both({ shared: createSharedCounters(8192), keys: many, op: 'note', calls: 3 * many.length, win: 1 }),
  };
  const names = Object.keys(jobs);
  const done = await races(names.map((n) => jobs[n]!));
  const result = (n: string): [Hammered, Hammered] => done[names.indexOf(n)]!;
  const countsOf = (n: string, ks: readonly string[] = keys): number[] => {
    const table = new CounterTable(jobs[n]![0].shared);
    return slotsOf(table, ks).map((s) => table.countIn(s, 1));
  };
  const admitted = (n: string): number[] => keys.map((_, k) => result(n)[0].admitted[k]! + result(n)[1].admitted[k]!);

  t.test('acquire: exactly the limit', async (t) => {
    t.same(admitted('acquire'), keys.map(() => limit), 'admitted');
    t.same(countsOf('acquire'), keys.map(() => limit), 'counted');
    const [a, b] = result('acquire');
    t.equal(a.claimed.length + b.claimed.length, keys.length, 'each key claimed once');
  });

  t.test('acquireUnder: every admission saw the count under the limit', async (t) => {
    const counted = countsOf('acquireUnder');
    t.same(counted, admitted('acquireUnder').map((n) => n * amount), 'the count is what was admitted');
    t.ok(counted.every((c) => c >= bytesLimit && c < bytesLimit + amount), `each count stops within one call of ${bytesLimit}: ${counted.join(', ')}`);
  });

  t.test('add: every add counted once', async (t) => {
    t.same(countsOf('add'), keys.map(() => 2 * per));
  });

  t.test('release: every release given back once', async (t) => {
    t.same(countsOf('release'), keys.map(() => 5));
  });

  t.test('add against release on the same words', async (t) => {
    t.same(countsOf('mixed'), keys.map(() => per), 'what was added, less what was given back');
  });

  t.test('note: each key\'s bit set by exactly one thread', async (t) => {
    const [a, b] = result('note');
    const firsts = new Array<number>(many.length).fill(0);
    for (let i = 0; i < a.won.length; i++) firsts[i % many.length]! += a.won[i]! + b.won[i]!;
    t.equal(firsts.filter((n) => n > 1).length, 0, 'no key\'s note reported twice');
    t.equal(firsts.filter((n) => n === 0).length, 0, 'none lost');
  });
});
