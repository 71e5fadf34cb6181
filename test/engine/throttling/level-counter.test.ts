import t from 'tap';
import pino from 'pino';
import { CounterTable, KIND_REQUESTS, W_SPAN, createSharedCounters, type SharedCounters } from '../../../engine/throttling/counter-table.js';
import { fingerprint, hashInto, hashOf, newKeyHash } from '../../../engine/throttling/hash.js';
import type { CQuota } from '../../../engine/throttling/compiled.js';
import { LevelCounter } from '../../../engine/throttling/level-counter.js';
import { ThrottleReporter } from '../../../engine/throttling/throttle-reporter.js';

/**
 * The level counter on a real shared counter table, in-process: the slot a key's hash remembers from its
 * last count (KeyHash.slot) is a hint, taken only while the slot still holds that key under the current
 * policies. The keys the counter claims reach a listener on the reporter's real BroadcastChannel.
 */
const PASSED = -1;

function quota(limit: number, windowMs: number): CQuota {
  return { limit, unit: 1, windowMs, kind: KIND_REQUESTS, span: BigInt(windowMs), limitWord: BigInt(limit) };
}

interface Rig {
  readonly counter: LevelCounter;
  readonly table: CounterTable;
  /** Keys announced as claimed, in order. */
  readonly claimed: string[];
  close(): void;
}

let channels = 0;

function rig(t: Tap.Test): Rig {
  const shared: SharedCounters = createSharedCounters(1024);
  const name = `level-counter-test-${process.pid}-${channels++}`;
  const reporter = new ThrottleReporter(pino({ level: 'silent' }));
  reporter.connect(name);
  const listener = new BroadcastChannel(name);
  const claimed: string[] = [];
  listener.onmessage = (e: MessageEvent): void => {
    const m = e.data as { t: string; keys?: (number | string)[] };
    if (m.t === 'keys') for (let i = 1; i < m.keys!.length; i += 2) claimed.push(m.keys![i] as string);
  };
  const counter = new LevelCounter(reporter);
  counter.useCounters(shared);
  counter.useRevision(1);
  const r = { counter, table: new CounterTable(shared), claimed, close: () => { listener.close(); reporter.close(); } };
  t.teardown(() => r.close());
  return r;
}

/** Lets the reporter's batched announcements (one per turn) reach the listener. */
const announced = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

t.test('a key counts in the slot its hash remembers, call after call', async (t) => {
  const { counter, table, claimed } = rig(t);
  const h = hashOf('s\u001fapp\u001fapi\u001fGold');
  const q = quota(100, 60_000);
  const now = 1_800_000_000_000;
  for (let i = 0; i < 3; i++) {
    counter.begin(now, 'api', null);
    t.equal(counter.acquire('subscription', 'Gold', 's-key', h, q, 1), PASSED);
  }
  t.ok(h.slot >= 0, 'the hash remembers its slot');
  t.ok(table.holds(h.slot, h), 'the remembered slot holds the key');
  t.equal(table.countIn(h.slot, Math.floor(now / q.windowMs)), 3, 'all three calls counted in it');
  t.equal(counter.bestRemaining, 97);
  await announced();
  t.same(claimed, ['s-key'], 'the slot was claimed once');
});

t.test('a slot the main thread evicted since the last count is claimed anew, not counted in', async (t) => {
  const { counter, table, claimed } = rig(t);
  const key = 'p\u001fapp\u001fuser\u001fUnlimited';
  const h = hashOf(key);
  const q = quota(100, 60_000);
  const now = 1_800_000_000_000;
  counter.begin(now, 'api', null);
  counter.acquire('application', 'App', key, h, q, 1);
  const first = h.slot;
  t.ok(table.evict(first, fingerprint(key)), 'the main thread evicted the idle slot');
  counter.begin(now, 'api', null);
  t.equal(counter.acquire('application', 'App', key, h, q, 1), PASSED);
  t.ok(table.holds(h.slot, h), 'the key is in a slot again');
  t.equal(table.countIn(h.slot, Math.floor(now / q.windowMs)), 1, 'the count started afresh in the claimed slot');
  await announced();
  t.same(claimed, [key, key], 'the key was announced again, so the main thread syncs and evicts it');
});

t.test("a scratch hash filled with another key does not count in the first key's slot", async (t) => {
  const { counter, table } = rig(t);
  const h = newKeyHash();
  const q = quota(100, 60_000);
  const now = 1_800_000_000_000;
  const win = Math.floor(now / q.windowMs);
  counter.begin(now, 'api', null);
  counter.acquire('custom', 'C', 'c\u001fone', hashInto('c\u001fone', h), q, 1);
  const one = h.slot;
  counter.begin(now, 'api', null);
  counter.acquire('custom', 'C', 'c\u001ftwo', hashInto('c\u001ftwo', h), q, 1);
  t.not(h.slot, one, 'the second key has a slot of its own');
  t.equal(table.countIn(one, win), 1, "the first key's count is unchanged");
  t.equal(table.countIn(h.slot, win), 1, 'the second key counted in its own slot');
});

t.test('after new policies a remembered slot is described again on its next count', async (t) => {
  const { counter, table } = rig(t);
  const h = hashOf('a\u001fapi\u001fGold');
  const now = 1_800_000_000_000;
  counter.begin(now, 'api', null);
  counter.acquire('api', 'Gold', 'a-key', h, quota(100, 60_000), 1);
  t.equal(table.word(h.slot, W_SPAN), 60_000n);
  counter.useRevision(2);
  counter.begin(now, 'api', null);
  counter.acquire('api', 'Gold', 'a-key', h, quota(100, 1_000), 1);
  t.equal(table.word(h.slot, W_SPAN), 1_000n, 'the main thread sees the new window length');
});
