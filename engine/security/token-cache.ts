/**
 * A bounded cache of validated tokens (apim.cache.gateway_token): a Map in insertion order, the oldest
 * entry dropped when full, each entry valid until its own deadline (the token's expiry or the cache
 * expiry, whichever comes first). One per io thread; a hit costs one Map lookup.
 *
 * With `tailChars` > 0 the Map is keyed by the key's last `tailChars` characters and a hit also needs the
 * whole key to be equal. An access token arrives as a new string on every call, and V8 hashes a string
 * over its whole length before a Map lookup: for a 1 KB JWT that hash cost as much as the rest of the
 * authentication. The end of a signed JWT (its signature) or of a random opaque token tells tokens apart
 * as well as the whole; two keys with the same tail only share a slot (the newer replaces the older),
 * they never answer for each other.
 */
export class TokenCache<V> {
  private readonly map = new Map<string, { readonly key: string; readonly value: V; readonly until: number }>();

  constructor(private readonly maxEntries: number, private readonly ttlMs: number, private readonly tailChars = 0) {}

  private slot(key: string): string {
    const n = this.tailChars;
    return n > 0 && key.length > n ? key.slice(key.length - n) : key;
  }

  get(key: string, now: number): V | undefined {
    const slot = this.slot(key);
    const e = this.map.get(slot);
    if (e === undefined || e.key !== key) return undefined;
    if (e.until <= now) { this.map.delete(slot); return undefined; }
    return e.value;
  }

  set(key: string, value: V, expiresAt: number, now: number): void {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return;
    const slot = this.slot(key);
    if (this.map.size >= this.maxEntries && !this.map.has(slot)) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(slot, { key, value, until: Math.min(expiresAt, now + this.ttlMs) });
  }

  /** Drops entries whose value matches (a revoked token id). */
  deleteWhere(pred: (v: V) => boolean): number {
    let n = 0;
    for (const [k, e] of this.map) if (pred(e.value)) { this.map.delete(k); n++; }
    return n;
  }

  get size(): number {
    return this.map.size;
  }
}
