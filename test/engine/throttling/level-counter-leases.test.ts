import t from 'tap';
import pino from 'pino';
import { CounterTable, KIND_REQUESTS, createSharedCounters, type SharedCounters } from '../../../engine/throttling/counter-table.js';
import { hashOf, type KeyHash } from '../../../engine/throttling/hash.js';
import type { CQuota } from '../../../engine/throttling/compiled.js';
import { LevelCounter } from '../../../engine/throttling/level-counter.js';
import { ThrottleReporter } from '../../../engine/throttling/throttle-reporter.js';

/**
 * Leases (level-counter.ts): under a request limit of at least 200 calls a window per io thread, an io
 * thread takes calls from a slot's shared count many at a time and admits them on its own. In-process, on a
 * real shared counter table, with one LevelCounter per simulated io thread, as each io thread has its own.
 */
const PASSED = -1;
const NOW = 1_800_000_000_000;
const MINUTE = 60_000;

function quota(limit: number): CQuota {
  return { limit, unit: 1, windowMs: MINUTE, kind: KIND_REQUESTS, span: BigInt(MINUTE), limitWord: BigInt(limit) };
}

let channels = 0;

/** A table counted in by `threads` io threads (as the main thread announces it), and one counter per thread. */
function rig(t: Tap.Test, threads: number): { table: CounterTable; counters: LevelCounter[] } {
  const shared: SharedCounters = createSharedCounters(1024);
  const table = new CounterTable(shared);
  table.setThreads(threads);
  const counters: LevelCounter[] = [];
  for (let i = 0; i < threads; i++) {
    const reporter = new ThrottleReporter(pino({ level: 'silent' }));
    reporter.connect(`lease-test-${process.pid}-${channels++}`);
    t.teardown(() => reporter.close());
    const c = new LevelCounter(reporter);
    c.useCounters(shared);
    c.useRevision(1);
    counters.push(c);
  }
  return { table, counters };
}

/** One call at one level; true when it passed. */
function call(c: LevelCounter, key: string, h: KeyHash, q: CQuota, now = NOW): boolean {
  c.begin(now, 'api', null);
  return c.acquire('subscription', 'Gold', key, h, q, 1) === PASSED;
}

const win = (now = NOW): number => Math.floor(now / MINUTE);

t.test('under a large limit one thread takes 64 calls a lease, and the calls it reports used are exact', async (t) => {
  const { table, counters: [c] } = rig(t, 1);
  const h = hashOf('s\u001fbig');
  const q = quota(1_000_000);
  for (let i = 1; i <= 100; i++) {
    t.ok(call(c!, 's-big', h, q), `call ${i} passes`);
    if (i === 1 || i === 64 || i === 65 || i === 100) t.equal(c!.bestRemaining, 1_000_000 - i, `after call ${i} the remaining calls are exact`);
  }
  t.equal(table.countIn(h.slot, win()), 128, 'the shared count holds two leases of 64: two compare-and-swaps for 100 calls');
});

t.test('below 200 calls a window per io thread, every call is its own compare-and-swap and the count is exact', async (t) => {
  const { table, counters: [a, b] } = rig(t, 2);
  const h = hashOf('s\u001fsmall');
  const q = quota(399);
  for (let i = 0; i < 10; i++) t.ok(call(i % 2 ? a! : b!, 's-small', h, q));
  t.equal(table.countIn(h.slot, win()), 10, 'ten calls, ten counted');
  for (let i = 0; i < 389; i++) call(i % 2 ? a! : b!, 's-small', h, q);
  t.notOk(call(a!, 's-small', h, q), 'the 400th call is refused: exactly the limit passed');
  t.equal(table.countIn(h.slot, win()), 399);
});

t.test('two threads sharing a large limit never pass more than it, and leave less than 0.5% of it unused', async (t) => {
  const { table, counters } = rig(t, 2);
  const h = [hashOf('s\u001fshared'), hashOf('s\u001fshared')];
  const limit = 100_000;
  const q = quota(limit);
  let passed = 0;
  let refusedInARow = 0;
  // Calls land on either thread in a pseudo-random order, as connections do, until both refuse.
  let seed = 7;
  while (refusedInARow < 200) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const i = seed & 1;
    if (call(counters[i]!, 's-shared', h[i]!, q)) { passed++; refusedInARow = 0; } else refusedInARow++;
  }
  t.ok(passed <= limit, `passed ${passed}, never over the limit`);
  t.ok(passed >= limit * 0.995, `passed ${passed}: under by ${limit - passed}, less than 0.5% (what a lease held when the count ran out)`);
  t.equal(table.countIn(h[0]!.slot, win()), limit, 'the shared count reached the limit');
});

t.test('a call a later level refuses goes back to the lease it came from, not to the shared count', async (t) => {
  const { table, counters: [c] } = rig(t, 1);
  const big = hashOf('s\u001flevel-one');
  const tight = hashOf('a\u001flevel-two');
  const qBig = quota(1_000_000);
  const qTight = quota(1);
  c!.begin(NOW, 'api', null);
  t.equal(c!.acquire('subscription', 'Gold', 's-one', big, qBig, 1), PASSED);
  t.equal(c!.acquire('application', 'App', 'a-two', tight, qTight, 1), PASSED, 'the first call passes both levels');
  c!.begin(NOW, 'api', null);
  t.equal(c!.acquire('subscription', 'Gold', 's-one', big, qBig, 1), PASSED);
  t.not(c!.acquire('application', 'App', 'a-two', tight, qTight, 1), PASSED, 'the second is refused by the tight level');
  t.equal(table.countIn(big.slot, win()), 64, 'the shared count still holds the one lease');
  // The lease had 63 left after the first call; the refused call gave its one back: 63 more pass from it.
  for (let i = 0; i < 63; i++) t.ok(call(c!, 's-one', big, qBig));
  t.equal(table.countIn(big.slot, win()), 64, '63 more calls came from the lease: no new one taken');
  t.equal(c!.bestRemaining, 1_000_000 - 64, 'used: the first call and the 63');
  t.ok(call(c!, 's-one', big, qBig));
  t.equal(table.countIn(big.slot, win()), 128, 'the next took a new lease');
});

t.test("a new window takes a new lease; the old window's calls are not admitted in it", async (t) => {
  const { table, counters: [c] } = rig(t, 1);
  const h = hashOf('s\u001fwindows');
  const q = quota(1_000_000);
  t.ok(call(c!, 's-w', h, q));
  const next = NOW + MINUTE;
  t.ok(call(c!, 's-w', h, q, next));
  t.equal(table.countIn(h.slot, win(next)), 64, 'a lease of its own in the new window');
  t.equal(c!.bestRemaining, 1_000_000 - 1, 'one call used in the new window');
});

t.test('new policies drop what a lease had left: a lowered limit is not overrun from an old lease', async (t) => {
  const { table, counters: [c] } = rig(t, 1);
  const h = hashOf('s\u001frevised');
  t.ok(call(c!, 's-r', h, quota(1_000_000)));
  t.equal(table.countIn(h.slot, win()), 64);
  c!.useRevision(2);
  // The new limit is below what the count already holds (the lease's 64): the next call is refused, not
  // admitted from the 63 the old lease had left.
  t.notOk(call(c!, 's-r', h, quota(50)), 'refused under the new limit');
});
