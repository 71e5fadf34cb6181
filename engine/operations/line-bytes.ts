/**
 * Log text written straight as bytes into one Buffer: pieces already encoded (UTF-8) and numbers as their
 * decimal digits. A batch of access-log lines built as a JavaScript string is a rope of some 25 pieces per
 * line; writing it to a file flattens and encodes it, and that cost the main thread more than building it
 * (perf, docs/performance.md). Bytes written here go to the file as they are.
 *
 * The writer checks room once per line (`reserve`), not per piece: the writes after it stay within what was
 * reserved, so a line's dozen writes cost no bounds logic of their own. A write past the reserve is lost
 * (a typed array ignores a store out of its bounds) or throws (a long piece's `set`): never written outside
 * the buffer. The batch's caller catches and logs a throw (telemetry-hub.ts).
 */
export class LineBytes {
  private buf: Buffer;
  private off = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.max(256, capacity));
  }

  /** Room for `n` more bytes (the buffer doubles; what was written is kept). */
  reserve(n: number): void {
    if (this.off + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.off + n));
    this.buf.copy(next, 0, 0, this.off);
    this.buf = next;
  }

  /** Encoded text (see `encoded`). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    const buf = this.buf;
    let o = this.off;
    // Most pieces are a few dozen bytes: a loop is cheaper than TypedArray.prototype.set's call for them.
    if (n <= 32) for (let i = 0; i < n; i++) buf[o++] = b[i]!;
    else { buf.set(b, o); o += n; }
    this.off = o;
  }

  /** One ASCII byte (a separator). */
  byte(c: number): void {
    this.buf[this.off++] = c;
  }

  /** A non-negative integer below 2^53 as its digits; anything else as JavaScript writes it. */
  int(n: number): void {
    if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n)) { this.bytes(encoded(String(n))); return; }
    let digits = 1;
    for (let p = 10; p <= n && digits < 16; p *= 10) digits++;
    const buf = this.buf;
    let o = this.off + digits;
    this.off = o;
    do {
      const q = Math.floor(n / 10);
      buf[--o] = 0x30 + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /** Exactly three digits of 0..999, leading zeros kept (the fraction of a millisecond figure). */
  three(n: number): void {
    const buf = this.buf;
    const o = this.off;
    const h = Math.floor(n / 100);
    const t = Math.floor((n - h * 100) / 10);
    buf[o] = 0x30 + h;
    buf[o + 1] = 0x30 + t;
    buf[o + 2] = 0x30 + (n - h * 100 - t * 10);
    this.off = o + 3;
  }

  /** What was written: a view of the buffer, good until the writer is reset. */
  done(): Buffer {
    return this.buf.subarray(0, this.off);
  }

  /** Empty again, its buffer kept (a writer used batch after batch makes no buffer per batch). */
  reset(): void {
    this.off = 0;
  }
}

/**
 * Room enough for any number a line writes: `int`'s fallback (String(-Number.MAX_VALUE) is 24 characters)
 * and a duration's (toFixed(3) below 1e21: at most 27).
 */
export const NUMBER_ROOM = 32;

/** Text as the UTF-8 bytes a LineBytes takes. */
export function encoded(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}
