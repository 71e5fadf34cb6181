import t from 'tap';
import { Worker } from 'node:worker_threads';
import { CounterTable, MAX_VALUE, NOTE_OVER_QUOTA, NOTE_THROTTLED, W_NOTE, createSharedCounters, unpack, windowTag, type SharedCounters } from '../../engine/throttling/counter-table.js';
import { fingerprint, hashOf } from '../../engine/throttling/hash.js';

const modUrl = new URL('../../engine/throttling/counter-table.ts', import.meta.url).href;
const hashUrl = new URL('../../engine/throttling/hash.ts', import.meta.url).href;

interface Job {
  readonly shared: SharedCounters;
  readonly keys: readonly string[];
  readonly calls: number;
  readonly op?: 'acquire' | 'acquireUnder' | 'add' | 'release' | 'note' | 'rolling';
  readonly limit?: number;
  readonly amount?: number;
  /** A fixed window number; else the current one of hour-long windows. */
  readonly win?: number;
  /** rolling: how many windows, the acquires in each, the threads' windows and this thread's index in them. */
  readonly windows?: number;
  readonly perWindow?: number;
  readonly progress?: SharedArrayBuffer;
  readonly me?: number;
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

t.test('a late call counts in the window its word has moved on to; a word further ahead is replaced', async (t) => {
  const table = new CounterTable(createSharedCounters(1024));
  const slot = table.slotOf(hashOf('late'));
  t.ok(table.acquire(slot, 7, 3, 1));
  t.ok(table.acquire(slot, 8, 3, 1), 'the next window');
  t.ok(table.acquire(slot, 8, 3, 1));
  t.ok(table.acquire(slot, 7, 3, 1), 'a call of window 7 arriving after window 8 started');
  t.equal(table.count, 3, 'counted in window 8');
  t.equal(table.countIn(slot, 8), 3, 'window 8 keeps its count');
  t.notOk(table.acquire(slot, 7, 3, 1), 'and its limit holds for late calls too');
  t.equal(table.countIn(slot, 8), 3);
  table.release(slot, 7, 1);
  t.equal(table.countIn(slot, 8), 3, 'a release for the ended window changes nothing');
  t.ok(table.note(slot, 8, NOTE_THROTTLED));
  t.notOk(table.note(slot, 7, NOTE_OVER_QUOTA), 'nor does a note for it');
  t.same(unpack(table.word(slot, W_NOTE)), { tag: 8, value: NOTE_THROTTLED });

  // Two windows ahead is not a late call: the window length changed (a policy edit), and the call's own
  // window replaces the word.
  t.ok(table.acquire(slot, 6, 3, 1));
  t.equal(table.countIn(slot, 6), 1);
  t.equal(table.countIn(slot, 8), 0);

  // Window numbers wrap at 2^31: the window before 0 is 2^31 - 1.
  const wrap = table.slotOf(hashOf('wrap'));
  t.ok(table.acquire(wrap, 2 ** 31, 5, 2));
  t.ok(table.acquire(wrap, 2 ** 31 - 1, 5, 1), 'a late call across the wrap');
  t.equal(table.countIn(wrap, 2 ** 31), 3);
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

t.test('two threads counting across thousands of window roll-overs admit exactly the limit of each window', async (t) => {
  // Each thread makes more calls than the limit in every window and is never more than one window ahead of
  // the other: the leading thread fills each window, and the trailing one's calls land in the window the word
  // has moved on to. A count lost at a roll-over (a late call swapping its ended window back in, or a 32-bit
  // swap landing on a word rolled under it) admits more than the limit somewhere.
  const windows = 20_000;
  const limit = 4;
  const shared = createSharedCounters(1024);
  const progress = new SharedArrayBuffer(8);
  const job = (me: number): Job => ({ shared, keys: ['roll\u001f0'], calls: 0, op: 'rolling', windows, perWindow: 6, limit, progress, me });
  const [[a, b]] = await races([[job(0), job(1)]]);
  t.equal(a!.admitted[0]! + b!.admitted[0]!, windows * limit, `${windows} windows of ${limit}`);
  const table = new CounterTable(shared);
  t.equal(table.countIn(table.slotOf(hashOf('roll\u001f0')), windows), limit, 'the last window full');
});

t.test('a window\'s tag is its number modulo 2^31, for every whole number a window can have', async (t) => {
  const numbers = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 2 ** 40 + 3, 2 ** 52 + 1, 2 ** 53 - 1,
    Math.floor(Date.now() / 1000), Math.floor(Date.now() / 60_000), Date.now(), Math.floor(Date.now() / 7)];
  for (const n of numbers) t.equal(windowTag(n), n % 2 ** 31, String(n));
});
