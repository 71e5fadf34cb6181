/**
 * Revoked token ids (JWT jti, or the hash of an opaque token), each kept until the token would have
 * expired anyway. Checked on every call, cache hit or not.
 */
export class RevocationList {
  private readonly ids = new Map<string, number>();

  add(tokenId: string, expiresAt: number): void {
    this.ids.set(tokenId, expiresAt);
  }

  has(tokenId: string): boolean {
    return this.ids.has(tokenId);
  }

  /** Forgets revocations of tokens that have expired. */
  purge(now: number): void {
    for (const [id, exp] of this.ids) if (exp <= now) this.ids.delete(id);
  }

  get size(): number {
    return this.ids.size;
  }
}
