/**
 * The bytes of a kept read (front-door/kept-read.ts for requests, sender/kept-response.ts for responses):
 * its head's bytes, held, and how many body bytes followed them, counted. A read repeats it when it has the
 * same length and begins with the same head bytes: a Content-Length body is bytes the parser counts,
 * whatever they hold. Its size is bounded by the head limit of the side that keeps it.
 */
export class KeptReadBytes {
  /** Bytes of the kept read, head and body; -1: none kept. */
  private length = -1;
  /** Bytes of its head (its first bytes); the rest was its body. */
  headLength = 0;
  /** Holds the head's bytes from 0; reused while they fit. */
  private bytes: Buffer = Buffer.alloc(0);

  /** Whether the `n`-byte read in `chunk` repeats the kept one: its head's bytes, and as many body bytes. */
  repeats(chunk: Buffer, n: number): boolean {
    const h = this.headLength;
    return n === this.length && chunk.compare(this.bytes, 0, h, 0, h) === 0;
  }

  /** Holds the first `headLength` bytes of the `n`-byte read in `chunk`. */
  hold(chunk: Buffer, n: number, headLength: number): void {
    if (this.bytes.length < headLength) this.bytes = Buffer.allocUnsafeSlow(Math.max(headLength, 1024));
    chunk.copy(this.bytes, 0, 0, headLength);
    this.length = n;
    this.headLength = headLength;
  }
}
