import type { CQuota } from './compiled.js';
import { CounterTable, H_MODE, H_THREADS, KIND_BANDWIDTH, KIND_COUNT_ONLY, KIND_REQUESTS, MODE_CLUSTER, NOTE_OVER_QUOTA, NOTE_THROTTLED, windowTag, type SharedCounters } from './counter-table.js';
import { warmUpCounterPaths } from './counter-warm-up.js';
import { LEVEL_ERROR, type ThrottleLevel } from './errors.js';
import type { KeyHash } from './hash.js';
import type { DecisionFacts } from './messages.js';
import type { ThrottleReporter } from './throttle-reporter.js';

const MAX_LEVELS = 16;

/** acquire: the level let the call (or message) through. */
const PASSED = -1;

/**
 * Leases: with a request limit of at least LEASE_PER_THREAD calls per io thread a window, an io thread takes
 * calls from a slot's shared count several at a time (at most LEASE_MAX, and at most limit / (threads x
 * LEASE_PER_THREAD)) and admits them on its own, one compare-and-swap for many calls. Calls taken and not
 * admitted when the window ends are lost to that window: under 1 / LEASE_PER_THREAD of the limit (0.5%)
 * whatever the number of io threads, and issue 7 allows 1%. Below that limit every call is its own
 * compare-and-swap, and the count is exact.
 */
const LEASE_PER_THREAD = 200;
const LEASE_MAX = 64;

/** Whom a decision names besides the API: the caller (the call's AuthContext), or null for an anonymous call. */
export interface DecisionCaller {
  readonly application: string;
  readonly user: string;
}

/**
 * Counts one call (or WebSocket message) level by level in the node's shared counter table
 * (counter-table.ts): each level with one compare-and-swap in its key's slot, or, under a large request
 * limit, from a lease this thread took from that slot in one compare-and-swap for many calls (fromLease). It remembers what each
 * level took, so that when a later level refuses the earlier ones give it back; keeps the tightest
 * level's remaining calls for the X-RateLimit-* headers; and reports claimed slots and decisions (once
 * per key and window) through the reporter. Which levels apply, and with which keys, is the evaluator's
 * (throttle-evaluator.ts).
 *
 * One call at a time per thread: the call's state is in fields and typed arrays, so counting allocates
 * nothing.
 */
export class LevelCounter {
  private table: CounterTable | null = null;
  /** Per slot, the policy revision this thread last described it under (SPAN, LIMIT words). */
  private described = new Int32Array(0);
  private revision = 0;
  /** io threads counting in the table (the main thread wrote it): how large a lease may be. */
  private threads = 1;
  /**
   * Per slot, this thread's lease: its size under the current policies (1: none), the calls taken from the
   * shared count and not admitted yet, the window they were taken in, and the key (its fingerprint's halves)
   * they were taken for.
   */
  private leaseSize = new Int32Array(0);
  private leaseLeft = new Int32Array(0);
  private leaseWin = new Int32Array(0);
  private leaseHi = new Int32Array(0);
  private leaseLo = new Int32Array(0);

  // ---- the call being counted (one at a time on this thread) ----
  private now = 0;
  /** The table's mode when the call began: with Redis (leases, the cluster's count) or alone. */
  private clustered = false;
  private taken = 0;
  private readonly takenSlot = new Int32Array(MAX_LEVELS);
  private readonly takenWin = new Float64Array(MAX_LEVELS);
  private readonly takenAmount = new Float64Array(MAX_LEVELS);
  /** Per level taken: 1 when the call was admitted from this thread's lease (given back to it, not to the table). */
  private readonly takenLeased = new Uint8Array(MAX_LEVELS);
  /** The slot the last acquire counted in (-1: the table was full). */
  lastSlot = -1;
  /** The tightest request level that let the call through (-1: none yet), its limit and the ms to its reset. */
  bestRemaining = -1;
  bestLimit = 0;
  bestResetMs = 0;
  /** Who a decision report names: the call's (or the WebSocket message's) API and caller. */
  private decisionApi = '';
  private decisionCaller: DecisionCaller | null = null;

  constructor(private readonly reporter: ThrottleReporter) {}

  useCounters(c: SharedCounters): void {
    warmUpCounterPaths();
    this.table = new CounterTable(c);
    this.described = new Int32Array(c.slots).fill(-1);
    this.threads = Math.max(1, Atomics.load(this.table.header, H_THREADS));
    this.leaseSize = new Int32Array(c.slots).fill(1);
    this.leaseLeft = new Int32Array(c.slots);
    this.leaseWin = new Int32Array(c.slots);
    this.leaseHi = new Int32Array(c.slots);
    this.leaseLo = new Int32Array(c.slots);
  }

  /** New policies: every slot is described again (its window length and limit) on its next count. */
  useRevision(revision: number): void {
    this.revision = revision;
  }

  get ready(): boolean {
    return this.table !== null;
  }

  /** A new call (or message) at `now`, reported as `api`'s and `caller`'s. */
  begin(now: number, api: string, caller: DecisionCaller | null): void {
    this.now = now;
    // Once a call, not once a level: a call counted under the mode of a moment ago is counted as it would
    // have been then (counter-table.ts).
    this.clustered = this.table !== null && this.table.header[H_MODE] === MODE_CLUSTER;
    this.taken = 0;
    this.bestRemaining = -1;
    this.decisionApi = api;
    this.decisionCaller = caller;
  }

  /**
   * One level's count in the shared table, for a call or a WebSocket message (decisions name
   * `decisionApi` / `decisionCaller`). Returns PASSED, or the ms to announce in Retry-After when the level
   * refused (what the earlier levels took has been given back then).
   */
  acquire(level: ThrottleLevel, policy: string, key: string, h: KeyHash, q: CQuota, amount: number): number {
    const slot = this.slotOf(key, h, q);
    this.lastSlot = slot;
    return slot < 0 ? PASSED : this.countIn(slot, level, policy, key, h, q, amount);
  }

  /**
   * The slot of a key, claimed (and announced to the main thread) when the key is new; -1 when the table
   * has no room near it (reported; the call is not counted at this level). The slot the hash was last
   * found in is taken when it still holds the key and has been described under the current policies: a
   * client's calls count in the same slots call after call, and the probe cost about a sixth of a
   * three-level count (a micro-benchmark, 2026-11-28).
   */
  private slotOf(key: string, h: KeyHash, q: CQuota): number {
    const table = this.table!;
    const last = h.slot;
    if (last >= 0 && table.holds(last, h) && this.described[last] === this.revision) return last;
    const slot = table.slotOf(h);
    h.slot = slot;
    if (slot < 0) { this.reporter.tableFull(table.mask + 1); return slot; }
    if (table.claimed) this.reporter.announce(slot, key);
    // The slot's window length and limit, for the main thread: on claim and after a policy change.
    if (table.claimed || this.described[slot] !== this.revision) {
      table.describe(slot, q.span, q.limitWord);
      this.described[slot] = this.revision;
      // New policies may have changed the limit: what the old lease left is not admitted under the new one.
      this.leaseLeft[slot] = 0;
    }
    this.leaseSize[slot] = q.kind === KIND_REQUESTS ? Math.max(1, Math.min(LEASE_MAX, Math.floor(q.limit / (this.threads * LEASE_PER_THREAD)))) : 1;
    return slot;
  }

  /**
   * The count at one level in its slot. Apart from slotOf so that V8 compiles it as a unit of its own, with
   * an inlining budget of its own for the counter table's compare-and-swap (counter-table.ts cas()): in one
   * function with slotOf the budget ran out, the compare-and-swap became a call, and a passing call was
   * 2 to 4% slower in the throttle phase's micro-benchmark.
   */
  private countIn(slot: number, level: ThrottleLevel, policy: string, key: string, h: KeyHash, q: CQuota, amount: number): number {
    const table = this.table!;
    const winNo = Math.floor(this.now / q.windowMs);
    const resetMs = (winNo + 1) * q.windowMs - this.now;
    let ok = true;
    let count: number;
    if (q.kind === KIND_COUNT_ONLY) {
      count = table.add(slot, winNo, 1);
      if (count > q.limit && table.note(slot, winNo, NOTE_OVER_QUOTA)) this.decide(level, policy, key, q, winNo, false);
    } else if (!this.clustered && this.leaseSize[slot]! > 1) {
      ok = this.fromLease(slot, winNo, q.limit, h);
      count = table.count;
    } else {
      const allowed = this.clustered ? table.allowance(slot, winNo, q.limit, q.kind) : q.limit;
      ok = q.kind === KIND_BANDWIDTH ? table.acquireUnder(slot, winNo, allowed, amount) : table.acquire(slot, winNo, allowed, 1);
      count = table.count;
      if (ok) this.take(slot, winNo, amount, 0);
    }
    const g = this.clustered ? table.globalIn(slot, winNo) : -1;
    const used = g > count ? g : count;
    if (!ok) return this.refused(slot, winNo, level, policy, key, q, count, g);
    if (q.kind !== KIND_BANDWIDTH) {
      const remaining = used >= q.limit ? 0 : q.limit - used;
      if (this.bestRemaining < 0 || remaining < this.bestRemaining || (remaining === this.bestRemaining && resetMs < this.bestResetMs)) {
        this.bestRemaining = remaining;
        this.bestLimit = q.limit;
        this.bestResetMs = resetMs;
      }
    }
    return PASSED;
  }

  /**
   * A request level with a lease (LEASE_PER_THREAD): the call is admitted from this thread's lease when it
   * has calls left in this window for this key; else a new lease is taken from the shared count; else, near
   * the limit, the call alone, exactly as without leases. Leaves in `table.count` the calls of the window as
   * this thread sees them: the shared count, less what its own lease has not admitted yet.
   */
  private fromLease(slot: number, winNo: number, limit: number, h: KeyHash): boolean {
    const table = this.table!;
    const tag = windowTag(winNo);
    const left = this.leaseLeft[slot]!;
    if (left > 0 && this.leaseWin[slot] === tag && this.leaseLo[slot] === h.lo && this.leaseHi[slot] === h.hi) {
      this.leaseLeft[slot] = left - 1;
      const seen = table.plainCount(slot, winNo) - (left - 1);
      table.count = seen > 0 ? seen : 1;
      this.take(slot, winNo, 1, 1);
      return true;
    }
    const size = this.leaseSize[slot]!;
    if (table.acquire(slot, winNo, limit, size)) {
      this.leaseLeft[slot] = size - 1;
      this.leaseWin[slot] = tag;
      this.leaseLo[slot] = h.lo;
      this.leaseHi[slot] = h.hi;
      table.count -= size - 1;
      this.take(slot, winNo, 1, 1);
      return true;
    }
    if (!table.acquire(slot, winNo, limit, 1)) return false;
    this.take(slot, winNo, 1, 0);
    return true;
  }

  /**
   * The level refused the call (`count`: this node's count in the window, `g`: the cluster's): what the
   * earlier levels took goes back, and the decision is reported once per key and window. Returns the ms
   * to announce in Retry-After.
   */
  private refused(slot: number, winNo: number, level: ThrottleLevel, policy: string, key: string, q: CQuota, count: number, g: number): number {
    const table = this.table!;
    this.giveBack();
    if (q.kind === KIND_REQUESTS && count < q.limit && g < q.limit && table.mode === MODE_CLUSTER) {
      // Not the limit: this node's leases ran out before the next sync. Ask for more now; retry soon.
      if (table.raiseHungry()) this.reporter.hungry();
      return 1000;
    }
    if (table.note(slot, winNo, NOTE_THROTTLED)) this.decide(level, policy, key, q, winNo, true);
    return (winNo + 1) * q.windowMs - this.now;
  }

  /**
   * Bandwidth policies: a finished call's response bytes, charged at `now` to the slots its request was
   * counted in (`slots`: flat [slot, windowMs, unit, ...]).
   */
  charge(slots: readonly number[], bytes: number, now: number): void {
    const table = this.table;
    if (table === null) return;
    for (let i = 0; i < slots.length; i += 3) table.add(slots[i]!, Math.floor(now / slots[i + 1]!), Math.ceil(bytes / slots[i + 2]!));
  }

  private take(slot: number, winNo: number, amount: number, leased: number): void {
    const n = this.taken;
    if (n >= MAX_LEVELS) return;
    this.takenSlot[n] = slot;
    this.takenWin[n] = winNo;
    this.takenAmount[n] = amount;
    this.takenLeased[n] = leased;
    this.taken = n + 1;
  }

  /** A level refused the call: the levels before it did not serve it, so their counts go back. */
  private giveBack(): void {
    const table = this.table!;
    for (let i = 0; i < this.taken; i++) {
      const slot = this.takenSlot[i]!;
      // From a lease: the call goes back to the lease, which still holds it in the shared count.
      if (this.takenLeased[i] === 1) { if (this.leaseWin[slot] === windowTag(this.takenWin[i]!)) this.leaseLeft[slot]++; } else table.release(slot, this.takenWin[i]!, this.takenAmount[i]!);
    }
    this.taken = 0;
  }

  private decide(level: ThrottleLevel, policy: string, key: string, q: CQuota, winNo: number, throttled: boolean): void {
    const who = this.decisionCaller;
    const d: DecisionFacts = {
      key, level, policy, code: LEVEL_ERROR[level].code, throttled, limit: q.limit, until: (winNo + 1) * q.windowMs,
      api: this.decisionApi,
      ...(who !== null ? { application: who.application, user: who.user } : {}),
    };
    this.reporter.decision(d);
  }
}
