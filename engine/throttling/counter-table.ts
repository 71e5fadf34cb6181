import { fpWord, type KeyHash } from './hash.js';

/**
 * The throttle counters of one node: a fixed-size open-addressing hash table in a SharedArrayBuffer that
 * the main thread creates and every io thread maps. No lock: every change is one Atomics.compareExchange
 * on one 64-bit word, so a count can never be lost or counted twice, whichever threads race.
 *
 * Slot layout (8 x 64-bit words, one cache line). A "tagged" word holds a window number (high 32 bits,
 * modulo 2^31) and a value (low 32 bits, unsigned):
 *
 *   FP      fingerprint of the throttle key (hash.ts); 0 = never used, -1 = deleted (the main thread evicted it)
 *   COUNT   tagged: calls (or bytes) admitted in that window by this node
 *   ALLOW   tagged: with Redis, what this node may admit in that window (its leases); main writes
 *   GLOBAL  tagged: with Redis, the cluster-wide count of that window last read back; main writes
 *   NOTE    tagged: "decision published" bits, so one event leaves per key and window
 *   SPAN    window length in ms (io threads write it on claim and after a policy change)
 *   LIMIT   limit (32 bits) | kind << 32 (KIND_*): what main needs to sync the slot with Redis
 *   spare
 *
 * Window roll-over: the window number sits in the same word as the count. A call that sees an older
 * window in COUNT treats the count as 0 and swaps in (its window, its amount); two calls racing at the
 * boundary both go through the compare-and-swap, so the loser retries on the fresh word. A late call of
 * the old window that finds the next one counts in the next one (it is admitted at the boundary, which is
 * where it belongs; before 2026-11-28 it swapped its old window back in, and the new window's count was
 * lost). Only one window back counts as late: a word further ahead is another window length's (a policy
 * changed), and the call's own window replaces it. Window numbers are kept modulo 2^31 (68 years of
 * 1-second windows): a slot is evicted long before its number can come round again.
 *
 * Collisions: linear probing from the fingerprint's home slot, up to MAX_PROBE slots. A lookup walks past
 * deleted slots until it finds its fingerprint or an empty slot, and only then claims the first free slot
 * with a compare-and-swap of FP; losing that race to the same key means using the winner's slot. Deletion
 * is the main thread's: a slot idle for two whole windows is cleared (COUNT.. zeroed first) and marked
 * deleted. When no slot is free within MAX_PROBE the call is not counted at that level (fail open) and the
 * main thread logs that the table is full (apim.throttling.counter_table_size).
 *
 * The hot path works on the 32-bit halves through an Int32Array view of the same memory, and reads them
 * with plain loads: V8 (Node 20) compiles no Atomics operation inline, each is a call into a builtin (about
 * 100 instructions), and on the BigInt64Array each load or swap also made a BigInt. Three levels cost
 * some 2 700 instructions a call that way (callgrind, 2026-11-28). Plain loads of an aligned Int32Array
 * element are not torn (ECMAScript's memory model) and can only be late, and every decision taken on them
 * is confirmed by a compare-and-swap, which is atomic:
 * - A count in the window the word already holds swaps the low half (the value) alone; only the roll-over
 *   to another window swaps the whole 64-bit word (casWord). The two sizes on the same memory stay exact
 *   because the 32-bit swap compares the value its decision was made on: if another thread rolled the word
 *   between this thread's read of the window and its swap, the swap fails unless the new window's value is
 *   the one read, and then the decision holds for the new window as well (the late call counts there, as
 *   above). Both sizes are single locked instructions on x64 (LOCK CMPXCHG) and exclusive-monitor loops on
 *   arm64, over the same naturally aligned bytes.
 * - A slot's fingerprint is read as two halves; a read between them and a claim or eviction is recognised
 *   (hash.ts keeps 0 and -1 out of keys' halves) and read again atomically, and a claim is itself a
 *   compare-and-swap.
 * - MODE is read plainly: a call counted under the mode of a moment ago is counted as it would have been.
 * Tagged words read outside a count (ALLOW, GLOBAL, with Redis) are read as one 64-bit word with Atomics.
 */
export const SLOT_WORDS = 8;
export const W_FP = 0;
export const W_COUNT = 1;
export const W_ALLOW = 2;
export const W_GLOBAL = 3;
export const W_NOTE = 4;
export const W_SPAN = 5;
export const W_LIMIT = 6;

const WIN_MOD = 2 ** 31;
export const MAX_VALUE = 2 ** 32 - 1;
export const MAX_PROBE = 64;

/** How a slot counts: requests against a limit (leased from Redis when clustered), requests counted only, bytes. */
export const KIND_REQUESTS = 0;
export const KIND_COUNT_ONLY = 1;
export const KIND_BANDWIDTH = 2;

/** Header (Int32Array over its own SharedArrayBuffer). */
export const H_MODE = 0;
export const H_NODES = 1;
export const H_CLAIMED = 2;
export const H_FULL = 3;
export const H_HUNGRY = 4;
/** How many io threads count in the table (the main thread writes it once): the size of their leases (level-counter.ts). */
export const H_THREADS = 5;
const HEADER_INTS = 16;

/** MODE: counters are this node's own (no Redis, or Redis away), or leased from Redis. */
export const MODE_LOCAL = 0;
export const MODE_CLUSTER = 1;

/** NOTE bits. */
export const NOTE_THROTTLED = 1;
export const NOTE_OVER_QUOTA = 2;

/** Share of a limit one node may admit on credit at the start of a window, before its first lease. */
export const CREDIT_SHARE = 0.04;

/** What CounterTable's compare-and-swap loop does with the value it read (see cas()); the counting ops first. */
const CAS_ACQUIRE = 0;
const CAS_ACQUIRE_UNDER = 1;
const CAS_ADD = 2;
const CAS_RELEASE = 3;
const CAS_NOTE = 4;

/** What the main thread passes to the io threads (structured clone shares the buffers). */
export interface SharedCounters {
  readonly table: SharedArrayBuffer;
  readonly header: SharedArrayBuffer;
  readonly slots: number;
}

export function createSharedCounters(requestedSlots: number): SharedCounters {
  let slots = 1024;
  while (slots < requestedSlots) slots *= 2;
  return {
    table: new SharedArrayBuffer(slots * SLOT_WORDS * 8),
    header: new SharedArrayBuffer(HEADER_INTS * 4),
    slots,
  };
}

// Which Int32 half of a 64-bit word is the high one (little-endian: the second).
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE ? 1 : 0;
const LO = LITTLE ? 0 : 1;
const scratch64 = new BigInt64Array(1);
const scratch32 = new Int32Array(scratch64.buffer);

/** The 64-bit word of (window, value). */
function pack(win: number, value: number): bigint {
  scratch32[HI] = win;
  scratch32[LO] = value;
  return scratch64[0]!;
}

/**
 * The window field of a word number `winNo` (a whole number, 0 or more): `winNo % WIN_MOD`, as the low 31
 * bits of its 32-bit truncation, which are the same for every whole number below 2^53. The hot path calls
 * this: a `%` of a number V8 cannot prove to be an int32 compiles to the x87 `fprem` loop.
 */
export function windowTag(winNo: number): number {
  return winNo & (WIN_MOD - 1);
}

/** The full window number whose tag is `tag`, at or before `current`. */
export function fullWindow(tag: number, current: number): number {
  const back = ((current % WIN_MOD) - tag + WIN_MOD) % WIN_MOD;
  return current - back;
}

/** (window tag, value) of a tagged word. */
export function unpack(word: bigint): { tag: number; value: number } {
  scratch64[0] = word;
  return { tag: scratch32[HI]!, value: scratch32[LO]! >>> 0 };
}

export class CounterTable {
  readonly words: BigInt64Array;
  private readonly i32: Int32Array;
  readonly header: Int32Array;
  readonly mask: number;
  /** After slotOf: this call claimed the slot (a new key). */
  claimed = false;
  /** After acquire / add: the slot's count in the window. */
  count = 0;

  constructor(readonly shared: SharedCounters) {
    this.words = new BigInt64Array(shared.table);
    this.i32 = new Int32Array(shared.table);
    this.header = new Int32Array(shared.header);
    this.mask = shared.slots - 1;
  }

  get mode(): number {
    return Atomics.load(this.header, H_MODE);
  }

  /** The slot of a key hash, claimed when the key is new; -1 when the table has no room near it. */
  slotOf(h: KeyHash): number {
    const i32 = this.i32;
    const mask = this.mask;
    const hi = h.hi;
    const lo = h.lo;
    this.claimed = false;
    for (let attempt = 0; attempt < 4; attempt++) {
      const home = lo & mask;
      let free = -1;
      let freeWas = 0n;
      for (let p = 0; p < MAX_PROBE; p++) {
        const i = (home + p) & mask;
        const at = i * SLOT_WORDS * 2;
        // Plain reads (see the class comment); the two halves of a word claimed or evicted between them
        // show a half of an empty or deleted slot beside a key's half, which no key has (hash.ts): such a
        // slot is read again, atomically, so that this key is neither missed nor claimed a second time.
        let vhi = i32[at + HI]!;
        let vlo = i32[at + LO]!;
        while (vhi !== vlo && (vhi === 0 || vhi === -1 || vlo === 0 || vlo === -1)) {
          vhi = Atomics.load(i32, at + HI);
          vlo = Atomics.load(i32, at + LO);
        }
        if (vhi === hi && vlo === lo) return i;
        if (vhi === 0 && vlo === 0) {
          if (free < 0) { free = i; freeWas = 0n; }
          break;
        }
        if (vhi === -1 && vlo === -1 && free < 0) { free = i; freeWas = -1n; }
      }
      if (free < 0) {
        Atomics.add(this.header, H_FULL, 1);
        return -1;
      }
      const fp = fpWord(h);
      const prev = Atomics.compareExchange(this.words, free * SLOT_WORDS, freeWas, fp);
      if (prev === freeWas) {
        this.claimed = true;
        Atomics.add(this.header, H_CLAIMED, 1);
        return free;
      }
      if (prev === fp) return free;
      // Another key took that slot meanwhile: look again.
    }
    Atomics.add(this.header, H_FULL, 1);
    return -1;
  }

  /**
   * Whether `slot` holds the key of `h`: its fingerprint read as two plain halves. Only the key's own slot
   * can show both of its halves: a slot goes from one key to another through empty or deleted (0, -1),
   * and a half of those is never a key's half (hash.ts), so a read torn by a claim or an eviction does not
   * match. A slot evicted a moment after the read is counted in as if the call had come a moment earlier.
   */
  holds(slot: number, h: KeyHash): boolean {
    const at = slot * SLOT_WORDS * 2;
    const i32 = this.i32;
    return i32[at + HI] === h.hi && i32[at + LO] === h.lo;
  }

  /**
   * Admits `amount` if the count stays within `limit`: the count after the add is in `this.count` and true
   * is returned; else the count is unchanged (in `this.count`) and false is returned.
   */
  acquire(slot: number, winNo: number, limit: number, amount: number): boolean {
    return this.cas(CAS_ACQUIRE, slot * SLOT_WORDS + W_COUNT, windowTag(winNo), amount, limit);
  }

  /** Admits when the count is still under `limit` (bytes: the call's size is not known in advance), then adds. */
  acquireUnder(slot: number, winNo: number, limit: number, amount: number): boolean {
    return this.cas(CAS_ACQUIRE_UNDER, slot * SLOT_WORDS + W_COUNT, windowTag(winNo), amount, limit);
  }

  /** Adds without a limit; returns the count after. */
  add(slot: number, winNo: number, amount: number): number {
    this.cas(CAS_ADD, slot * SLOT_WORDS + W_COUNT, windowTag(winNo), amount, 0);
    return this.count;
  }

  /** Gives back what acquire took (a later level refused the call). Nothing when the window has rolled. */
  release(slot: number, winNo: number, amount: number): void {
    this.cas(CAS_RELEASE, slot * SLOT_WORDS + W_COUNT, windowTag(winNo), amount, 0);
  }

  /**
   * The compare-and-swap loop behind every change of a tagged word: reads the word at `at` (its value
   * counts as 0 when the word holds an older window than `tag`), works out the next value as `op` says,
   * and swaps in (tag, next), next kept within MAX_VALUE; when another thread changed the word in between,
   * it reads again. True when the word was changed; false when `op` declined (over the limit, a release for
   * another window, the bit already set), and then nothing was written. The counting ops leave the count
   * in `this.count`. A count in the window the word holds swaps the value's half alone (the class comment
   * says why that is exact); everything else goes to casWord.
   *
   * `op` and its arguments are plain numbers: a call allocates nothing (a closure per operation would, on
   * every call). Keep the body small: V8 inlines it into the throttle's hot path (level-counter.ts) only
   * while the caller's inlining budget lasts, and a call instead costs the passing call a few percent.
   */
  private cas(op: number, at: number, tag: number, amount: number, limit: number): boolean {
    const i32 = this.i32;
    const lo = at * 2 + LO;
    for (;;) {
      // Releases and notes (rare: a refused call), and a word that holds another window: the whole word.
      if (op > CAS_ADD || i32[at * 2 + HI] !== tag) return this.casWord(op, at, tag, amount, limit);
      const c = i32[lo]! >>> 0;
      const next = this.countAfter(op, c, amount, limit);
      if (next < 0) return false;
      if (Atomics.compareExchange(i32, lo, c | 0, next | 0) === (c | 0)) {
        this.count = next;
        return true;
      }
    }
  }

  /**
   * The compare-and-swap of the whole 64-bit word, for a word that holds another window than `tag` (its
   * value counts as 0 then, unless the word is one window ahead: a late call, counted there), and for
   * releases and notes, which must not touch a window they were not meant for.
   */
  private casWord(op: number, at: number, tag: number, amount: number, limit: number): boolean {
    const w = this.words;
    for (;;) {
      const cur = Atomics.load(w, at);
      scratch64[0] = cur;
      const held = scratch32[HI]!;
      const same = held === tag;
      const ahead = !same && held === (tag + 1) % WIN_MOD;
      // A release or a note for a window that has ended changes nothing.
      if (ahead && op > CAS_ADD) return false;
      const c = same || ahead ? scratch32[LO]! >>> 0 : 0;
      let next: number;
      if (op <= CAS_ADD) {
        next = this.countAfter(op, c, amount, limit);
        if (next < 0) return false;
      } else if (op === CAS_RELEASE) {
        if (!same) return false;
        next = c > amount ? c - amount : 0;
      } else { // CAS_NOTE: `amount` is the bit
        if ((c & amount) !== 0) return false;
        next = c | amount;
      }
      if (Atomics.compareExchange(w, at, cur, pack(ahead ? held : tag, next)) === cur) {
        if (op <= CAS_ADD) this.count = next;
        return true;
      }
    }
  }

  /**
   * A counting op's value after `c` (kept within MAX_VALUE), or -1 when it declines (over the limit; the
   * count as it is is left in `this.count`). CAS_ADD has no limit.
   */
  private countAfter(op: number, c: number, amount: number, limit: number): number {
    if (op === CAS_ACQUIRE ? c + amount > limit : op === CAS_ACQUIRE_UNDER && c >= limit) { this.count = c; return -1; }
    const next = c + amount;
    return next > MAX_VALUE ? MAX_VALUE : next;
  }

  /** The value of a tagged word in a window, or `otherwise` when the word holds another window. */
  private tagged(slot: number, which: number, winNo: number, otherwise: number): number {
    scratch64[0] = Atomics.load(this.words, slot * SLOT_WORDS + which);
    return scratch32[HI] === windowTag(winNo) ? scratch32[LO]! >>> 0 : otherwise;
  }

  /** The count of the window (0 when the slot holds another window). */
  countIn(slot: number, winNo: number): number {
    return this.tagged(slot, W_COUNT, winNo, 0);
  }

  /**
   * The count of the window read plainly, as the hot path reads (the class comment): late at most, never
   * torn; 0 when the word holds another window.
   */
  plainCount(slot: number, winNo: number): number {
    const at = (slot * SLOT_WORDS + W_COUNT) * 2;
    const i32 = this.i32;
    return i32[at + HI] === windowTag(winNo) ? i32[at + LO]! >>> 0 : 0;
  }

  /**
   * What this node may admit in the window. Alone (or with Redis away): the policy's limit. Clustered: the
   * leases the main thread obtained for the window, or before the first one a small credit
   * (CREDIT_SHARE of the limit shared by the live nodes, at least one call). Bandwidth slots are not leased:
   * main writes count + what the cluster has left; before that, the limit.
   */
  allowance(slot: number, winNo: number, limit: number, kind: number): number {
    if (this.header[H_MODE] !== MODE_CLUSTER) return limit;
    const a = this.tagged(slot, W_ALLOW, winNo, -1);
    if (a >= 0) return Math.min(limit, a);
    if (kind === KIND_BANDWIDTH) return limit;
    const nodes = Math.max(1, Atomics.load(this.header, H_NODES));
    return Math.max(1, Math.floor((limit * CREDIT_SHARE) / nodes));
  }

  /** With Redis: the cluster-wide count of the window last read back, or -1. */
  globalIn(slot: number, winNo: number): number {
    if (this.header[H_MODE] !== MODE_CLUSTER) return -1;
    return this.tagged(slot, W_GLOBAL, winNo, -1);
  }

  /** Sets a NOTE bit for the window; true for the one caller that set it first. */
  note(slot: number, winNo: number, bit: number): boolean {
    return this.cas(CAS_NOTE, slot * SLOT_WORDS + W_NOTE, windowTag(winNo), bit, 0);
  }

  /** Keeps the slot's window length and limit current for the main thread. */
  describe(slot: number, span: bigint, limitWord: bigint): void {
    const w = this.words;
    const base = slot * SLOT_WORDS;
    if (Atomics.load(w, base + W_SPAN) !== span) Atomics.store(w, base + W_SPAN, span);
    if (Atomics.load(w, base + W_LIMIT) !== limitWord) Atomics.store(w, base + W_LIMIT, limitWord);
  }

  /**
   * Clustered, an io thread ran out of leased calls while the cluster still has room: true for the one
   * caller that raised the flag (it tells the main thread, which syncs at once and lowers it).
   */
  raiseHungry(): boolean {
    return Atomics.compareExchange(this.header, H_HUNGRY, 0, 1) === 0;
  }

  lowerHungry(): void {
    Atomics.store(this.header, H_HUNGRY, 0);
  }

  // ---- the main thread's side ----------------------------------------------------------------------

  word(slot: number, which: number): bigint {
    return Atomics.load(this.words, slot * SLOT_WORDS + which);
  }

  /** Main: writes a tagged value (ALLOW, GLOBAL). */
  writeTagged(slot: number, which: number, winNo: number, value: number): void {
    Atomics.store(this.words, slot * SLOT_WORDS + which, pack(windowTag(winNo), Math.max(0, Math.min(value, MAX_VALUE))));
  }

  /** Main: evicts an idle slot; false when its key is not `fp` any more. */
  evict(slot: number, fp: bigint): boolean {
    const w = this.words;
    const base = slot * SLOT_WORDS;
    if (Atomics.load(w, base + W_FP) !== fp) return false;
    for (let k = 1; k < SLOT_WORDS; k++) Atomics.store(w, base + k, 0n);
    if (Atomics.compareExchange(w, base + W_FP, fp, -1n) !== fp) return false;
    Atomics.sub(this.header, H_CLAIMED, 1);
    return true;
  }

  setMode(mode: number): void {
    Atomics.store(this.header, H_MODE, mode);
  }

  setThreads(n: number): void {
    Atomics.store(this.header, H_THREADS, n);
  }

  setNodes(n: number): void {
    Atomics.store(this.header, H_NODES, n);
  }

  get claimedSlots(): number {
    return Atomics.load(this.header, H_CLAIMED);
  }

  /** Failed claims since the last call (and resets the count). */
  takeFullCount(): number {
    return Atomics.exchange(this.header, H_FULL, 0);
  }
}

/** LIMIT word of a slot. */
export function limitWord(limit: number, kind: number): bigint {
  return BigInt(Math.min(limit, MAX_VALUE)) | (BigInt(kind) << 32n);
}

export function limitOfWord(word: bigint): { limit: number; kind: number } {
  return { limit: Number(word & 0xffffffffn), kind: Number(word >> 32n) };
}
