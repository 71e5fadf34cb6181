/**
 * The request body pieces a call holds: before the backend exchange exists (a few buffers' worth, then the
 * client is paused), or whole when a phase must read it (GraphQL, body validation, a content-aware in
 * sequence). Holding it whole has a cap ([passthru_http] max_buffered_request_body_size, or the API's own):
 * `push` says when the bytes held pass it, so the call answers 413 and never holds more.
 */
export class BodyBuffer {
  private chunks: Buffer[] | null = null;
  /** Bytes held now. */
  bytes = 0;

  /** Holds a piece; true while the bytes held stay within `limit`. */
  push(chunk: Buffer, limit: number): boolean {
    (this.chunks ??= []).push(chunk);
    this.bytes += chunk.length;
    return this.bytes <= limit;
  }

  get isEmpty(): boolean {
    return this.chunks === null;
  }

  /** The pieces held, handed over (to the backend exchange) and no longer held here. */
  take(): Buffer[] | null {
    const c = this.chunks;
    this.chunks = null;
    this.bytes = 0;
    return c;
  }

  /** Everything held as one Buffer (kept as the one piece, so a second call copies nothing). */
  whole(): Buffer {
    const c = this.chunks;
    if (c === null) return Buffer.alloc(0);
    if (c.length === 1) return c[0]!;
    const all = Buffer.concat(c);
    this.chunks = [all];
    return all;
  }

  /** Replaces what is held (mediation rewrote the body). */
  replace(body: Buffer): void {
    this.chunks = [body];
    this.bytes = body.length;
  }

  /** Drops what is held (the call was answered without it). */
  clear(): void {
    this.chunks = null;
    this.bytes = 0;
  }
}
