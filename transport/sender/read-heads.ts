/** Fields that frame a message or manage its connection: none may be a trailer field (RFC 9110 §6.5.1). */
const NOT_IN_TRAILERS: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

/**
 * The response heads llhttp completed during one parse of a backend read, with the first one's arguments: a
 * read that was exactly one whole head and its body is kept, and later reads that repeat it are replayed
 * (kept-response.ts). Also the fields of a long head, which llhttp hands over in groups of 32 before the head
 * completes.
 */
export class ReadHeads {
  /** Heads completed since `begin`. */
  count = 0;
  /** The first head's fields all came with its completing callback (no earlier groups). */
  firstWhole = false;
  firstStatus = 0;
  firstStatusText = '';
  firstFields: string[] = [];
  private parts: string[] | null = null;

  /** A parse of a read begins. */
  begin(): void {
    this.count = 0;
  }

  /** The parser was made new: the groups of an unfinished head are gone with it. */
  dropParts(): void {
    this.parts = null;
  }

  /** A group of fields of a head still being read (llhttp's kOnHeaders). */
  addParts(headers: string[]): void {
    if (this.parts === null) this.parts = headers;
    else for (let i = 0; i < headers.length; i++) this.parts.push(headers[i]!);
  }

  /**
   * The message ended. Fields handed over since its head are its trailer section's (Node's binding flushes them
   * through kOnHeaders right before the message's end): they are dropped, lest the next head start with them.
   * Whether one of them frames the message or manages the connection, which llhttp may act on.
   */
  endTrailers(): boolean {
    const t = this.parts;
    if (t === null) return false;
    this.parts = null;
    for (let i = 0; i < t.length; i += 2) if (NOT_IN_TRAILERS.has(t[i]!.toLowerCase())) return true;
    return false;
  }

  /** A head completed: all its fields. */
  complete(headers: string[] | undefined, status: number, statusText: string): string[] {
    let all = headers ?? [];
    if (++this.count === 1) {
      this.firstWhole = this.parts === null && headers !== undefined;
      this.firstStatus = status;
      this.firstStatusText = statusText;
      this.firstFields = all;
    }
    if (this.parts !== null) {
      if (headers) for (let i = 0; i < headers.length; i++) this.parts.push(headers[i]!);
      all = this.parts;
      this.parts = null;
    }
    return all;
  }
}
