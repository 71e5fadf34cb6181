/**
 * A bounded cache of validated tokens (apim.cache.gateway_token): a Map in insertion order, the oldest
 * entry dropped when full, each entry valid until its own deadline (the token's expiry or the cache
 * expiry, whichever comes first). One per io thread; a hit costs one Map lookup.
 */
export class TokenCache<V> {
  private readonly map = new Map<string, { readonly value: V; readonly until: number }>();

  constructor(private readonly maxEntries: number, private readonly ttlMs: number) {}

  get(key: string, now: number): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.until <= now) { this.map.delete(key); return undefined; }
    return e.value;
  }

  set(key: string, value: V, expiresAt: number, now: number): void {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return;
    if (this.map.size >= this.maxEntries) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, { value, until: Math.min(expiresAt, now + this.ttlMs) });
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
