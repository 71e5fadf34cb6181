/**
 * Views of a read buffer that sockets share (the `onread` buffer of an io thread's client sockets, and the
 * sender's), kept for reuse while the reads' bounds repeat.
 *
 * Why: in Node 20 `Buffer#subarray` is JavaScript that reads the buffer's `buffer` and `byteOffset` with
 * generic property loads (Buffer.prototype's map is not stable, so TurboFan leaves them to the inline
 * cache's builtin) and then makes a new FastBuffer: about 780 instructions by callgrind. A proxied call
 * made three: the client's request read, the backend's response read, and the response body within it.
 * Steady traffic repeats their bounds, so the view made for an earlier read with the same bounds serves.
 *
 * A view is valid only while the buffer holds the read it was taken for, which is already the contract of a
 * shared read buffer (whoever keeps bytes past the read's callback copies them): handing out the same view
 * object again changes nothing a caller may rely on.
 */
export class ReadViews {
  private start0 = -1;
  private end0 = -1;
  private view0: Buffer;
  private start1 = -1;
  private end1 = -1;
  private view1: Buffer;
  /** The slot the next new view replaces: two, since a backend read has its whole and its body. */
  private nextSlot = 0;

  /**
   * The buffer as 32-bit words from its first byte, for comparing a read that begins there four bytes a
   * step (kept-read-bytes.ts); null when the buffer does not begin on a 4-byte boundary.
   */
  readonly words: Int32Array | null;

  constructor(readonly buffer: Buffer) {
    this.view0 = buffer;
    this.view1 = buffer;
    this.words = buffer.byteOffset % 4 === 0 ? new Int32Array(buffer.buffer, buffer.byteOffset, buffer.length >> 2) : null;
  }

  /** `buffer[start, end)`: the buffer itself when whole, else a view, made once per pair of bounds in a row. */
  of(start: number, end: number): Buffer {
    if (start === 0 && end === this.buffer.length) return this.buffer;
    if (start === this.start0 && end === this.end0) return this.view0;
    if (start === this.start1 && end === this.end1) return this.view1;
    const view = this.buffer.subarray(start, end);
    if (this.nextSlot === 0) {
      this.start0 = start; this.end0 = end; this.view0 = view; this.nextSlot = 1;
    } else {
      this.start1 = start; this.end1 = end; this.view1 = view; this.nextSlot = 0;
    }
    return view;
  }
}

const byBuffer = new WeakMap<Buffer, ReadViews>();

/** The views of `buffer`, one set per buffer for every connection that reads into it. */
export function viewsOf(buffer: Buffer): ReadViews {
  let v = byBuffer.get(buffer);
  if (v === undefined) { v = new ReadViews(buffer); byBuffer.set(buffer, v); }
  return v;
}
