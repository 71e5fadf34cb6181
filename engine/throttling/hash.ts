/**
 * The 64-bit fingerprint of a throttle key: two independent 32-bit hashes of its UTF-16 code units
 * (FNV-1a, and a multiply-xorshift hash with another seed). A counter slot is found by the low half and
 * owned by the whole fingerprint, so two keys share a counter only if both hashes collide (about 1 in 2^64
 * per pair). The io threads keep it as two numbers (no bigint on the hot path); the slot's FP word holds
 * it as one 64-bit value. (0, 0) and (-1, -1) are reserved (empty slot, deleted slot), and no key's
 * half is 0 or -1.
 */
export interface KeyHash {
  hi: number;
  lo: number;
  /**
   * The counter slot this key was last found in (-1: none yet), a hint for the next count: the level
   * counter takes it only after reading this hash's fingerprint in that slot (level-counter.ts slotOf).
   */
  slot: number;
}

/** A hash to fill with hashInto (the evaluator's scratch and its cached keys' hashes). */
export function newKeyHash(): KeyHash {
  return { hi: 0, lo: 0, slot: -1 };
}

/** What a half of 0 or -1 becomes (any other value would do). */
const HALF_REMAP = 0x2545f491;

export function hashInto(key: string, out: KeyHash): KeyHash {
  let h1 = 0x811c9dc5;
  let h2 = 0x9e3779b9 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  // Neither half is 0 or -1: those are the halves of an empty and of a deleted slot, so a slot read as
  // two halves in the middle of its claim or eviction never looks like a key (counter-table.ts slotOf).
  out.hi = h1 === 0 || h1 === -1 ? h1 ^ HALF_REMAP : h1 | 0;
  out.lo = h2 === 0 || h2 === -1 ? h2 ^ HALF_REMAP : h2 | 0;
  return out;
}

export function hashOf(key: string): KeyHash {
  return hashInto(key, newKeyHash());
}

/** The FP word of a hash. */
export function fpWord(h: KeyHash): bigint {
  return BigInt.asIntN(64, (BigInt(h.hi) << 32n) | BigInt(h.lo >>> 0));
}

/** The fingerprint of a key as its FP word (main thread, tests). */
export function fingerprint(key: string): bigint {
  return fpWord(hashOf(key));
}
