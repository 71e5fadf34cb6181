/**
 * A bounded cache of validated tokens (apim.cache.gateway_token): a Map in insertion order, the oldest
 * entry dropped when full, each entry valid until its own deadline (the token's expiry or the cache
 * expiry, whichever comes first). One per io thread; a hit costs one Map lookup.
 *
 * With `tailChars` > 0 the Map is keyed by a hash of the key's last `tailChars` characters (tailHash) and
 * a hit also needs the whole key to be equal. An access token arrives as a new string on every call, and
 * V8 hashes a string over its whole length before a Map lookup: for a 1 KB JWT that hash cost as much as
 * the rest of the authentication. The end of a signed JWT (its signature) or of a random opaque token
 * tells tokens apart as well as the whole. A number rather than the tail itself as the key: V8 hashes a
 * fresh string (and compares it with the key found) in a call into its runtime, some 1 000 instructions a
 * lookup on 2026-11-28, where a small integer's hash is inline. Two keys with the same tail hash only share
 * a slot (the newer replaces the older); they never answer for each other.
 *
 * The entry last found is kept with the key string it was found for: a call that hands over that same string
 * again (the authenticate phase keeps its token while the header value repeats, gateway-security.ts) finds
 * it by one pointer compare, without the tail's hash or a compare of the whole token. Any change to the Map
 * forgets it.
 */
export class TokenCache<V> {
  private readonly map = new Map<string | number, Entry<V>>();
  private lastKey: string | null = null;
  private lastEntry: Entry<V> | null = null;
  private lastSlot: string | number = 0;

  constructor(private readonly maxEntries: number, private readonly ttlMs: number, private readonly tailChars = 0) {}

  private slot(key: string): string | number {
    return this.tailChars > 0 ? tailHash(key, this.tailChars) : key;
  }

  get(key: string, now: number): V | undefined {
    let e = this.lastEntry;
    let slot = this.lastSlot;
    if (key !== this.lastKey || e === null) {
      slot = this.slot(key);
      e = this.map.get(slot) ?? null;
      if (e === null || e.key !== key) return undefined;
      this.lastKey = key; this.lastEntry = e; this.lastSlot = slot;
    }
    if (e.until <= now) { this.forget(); this.map.delete(slot); return undefined; }
    return e.value;
  }

  private forget(): void {
    this.lastKey = null;
    this.lastEntry = null;
  }

  set(key: string, value: V, expiresAt: number, now: number): void {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return;
    const slot = this.slot(key);
    this.forget();
    if (this.map.size >= this.maxEntries && !this.map.has(slot)) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(slot, { key, value, until: Math.min(expiresAt, now + this.ttlMs) });
  }

  /** Drops entries whose value matches (a revoked token id). */
  deleteWhere(pred: (v: V) => boolean): number {
    let n = 0;
    this.forget();
    for (const [k, e] of this.map) if (pred(e.value)) { this.map.delete(k); n++; }
    return n;
  }

  get size(): number {
    return this.map.size;
  }
}

/**
 * FNV-1a over the last `n` UTF-16 code units of `key` (all of a shorter key) and its length, kept to
 * 30 bits so that V8 holds it as a small integer.
 */
export function tailHash(key: string, n: number): number {
  let h = 0x811c9dc5 ^ key.length;
  for (let i = key.length > n ? key.length - n : 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

interface Entry<V> {
  readonly key: string;
  readonly value: V;
  readonly until: number;
}
