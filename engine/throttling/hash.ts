/**
 * The 64-bit fingerprint of a throttle key: two independent 32-bit hashes of its UTF-16 code units
 * (FNV-1a, and a multiply-xorshift hash with another seed), packed in one bigint. A counter slot is found by
 * the low bits and owned by the whole fingerprint, so two keys share a counter only if both hashes collide
 * (about 1 in 2^64 per pair). 0 and -1 are reserved (empty slot, deleted slot).
 */
export const EMPTY = 0n;
export const DELETED = -1n;

export function fingerprint(key: string): bigint {
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
  const fp = BigInt.asIntN(64, (BigInt(h1 >>> 0) << 32n) | BigInt(h2 >>> 0));
  if (fp === EMPTY) return 1n;
  if (fp === DELETED) return 2n;
  return fp;
}

/** The slot a fingerprint's probe starts at, in a table of `mask + 1` slots. */
export function homeSlot(fp: bigint, mask: number): number {
  return Number(BigInt.asUintN(32, fp)) & mask;
}
