/**
 * Heads up to this many bytes are compared in JavaScript, four bytes a step, when the caller has the read's
 * words; longer ones with Buffer#compare. Buffer#compare is a call into C++ with its offsets checked on both
 * sides of the call: about 1 250 instructions by callgrind and 100 to 140 ns whatever the length (a
 * micro-benchmark, 2026-11-29), where the loop takes 55 ns for 128 bytes and 86 ns for 256, and passes
 * memcmp's cost between 256 and 512. A proxied call compares twice: the client's head and the backend's.
 */
const WORDS_MAX = 384;

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
  /** `bytes` as 32-bit words (its own memory, so aligned). */
  private words: Int32Array = new Int32Array(0);

  /**
   * Whether the `n`-byte read in `chunk` repeats the kept one: its head's bytes, and as many body bytes.
   * `words`: the memory of `chunk` from its first byte as 32-bit words (read-views.ts), or null when the
   * caller has none (a TLS read's own buffer).
   */
  repeats(chunk: Buffer, n: number, words: Int32Array | null): boolean {
    if (n !== this.length) return false;
    const h = this.headLength;
    if (words === null || h > WORDS_MAX) return chunk.compare(this.bytes, 0, h, 0, h) === 0;
    const kept = this.words;
    const w = h >> 2;
    let i = 0;
    // Four words a step with one branch: a head that repeats is compared whole.
    for (; i + 4 <= w; i += 4) {
      if (((words[i]! ^ kept[i]!) | (words[i + 1]! ^ kept[i + 1]!) | (words[i + 2]! ^ kept[i + 2]!) | (words[i + 3]! ^ kept[i + 3]!)) !== 0) return false;
    }
    for (; i < w; i++) if (words[i] !== kept[i]) return false;
    const bytes = this.bytes;
    for (let j = w << 2; j < h; j++) if (chunk[j] !== bytes[j]) return false;
    return true;
  }

  /** Holds the first `headLength` bytes of the `n`-byte read in `chunk`. */
  hold(chunk: Buffer, n: number, headLength: number): void {
    if (this.bytes.length < headLength) {
      this.bytes = Buffer.allocUnsafeSlow(Math.max(headLength, 1024));
      this.words = new Int32Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length >> 2);
    }
    chunk.copy(this.bytes, 0, 0, headLength);
    this.length = n;
    this.headLength = headLength;
  }
}
