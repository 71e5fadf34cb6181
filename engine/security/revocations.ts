/**
 * Revoked token ids (JWT jti, or the hash of an opaque token), each kept until the token would have
 * expired anyway. Checked on every call, cache hit or not.
 */
export class RevocationList {
  private readonly ids = new Map<string, number>();
  /**
   * The last id asked about and the answer, good while the list has not changed since (`changes`): a
   * client's calls ask about the same id, the cached token's own string, one after the other, and the
   * Map lookup is a builtin call.
   */
  private changes = 0;
  private lastId: string | null = null;
  private lastChanges = -1;
  private lastAnswer = false;

  add(tokenId: string, expiresAt: number): void {
    this.ids.set(tokenId, expiresAt);
    this.changes++;
  }

  has(tokenId: string): boolean {
    if (tokenId === this.lastId && this.lastChanges === this.changes) return this.lastAnswer;
    const answer = this.ids.has(tokenId);
    this.lastId = tokenId;
    this.lastChanges = this.changes;
    this.lastAnswer = answer;
    return answer;
  }

  /** Forgets revocations of tokens that have expired. */
  purge(now: number): void {
    for (const [id, exp] of this.ids) {
      if (exp <= now) { this.ids.delete(id); this.changes++; }
    }
  }

  get size(): number {
    return this.ids.size;
  }
}
