/**
 * The memory an io thread's call columns (call-columns.ts) are written in: one SharedArrayBuffer, cut into
 * a few segments of one batch each, and a state word per segment (FREE, or SENT while the main thread has
 * not read it yet).
 *
 * Why: a batch used to cross as two typed arrays copied out of the writer, and structured clone copied
 * them again into new ArrayBuffers on the main thread, about 140 bytes a call. V8 counts an ArrayBuffer's
 * memory against the heap's limit until it is collected, and the main thread, which scavenges only every
 * second or so under load, reached that limit first: with the access log's buffers (file-sink.ts) these
 * copies made it run a mark-compact about every 1.2 s, with V8's helper threads marking and sweeping on
 * cores the io threads need (docs/performance.md, stop 41). Shared memory is not counted per isolate, and a
 * batch now crosses as views of it: nothing is allocated for its columns on either side.
 *
 * The protocol: only the io thread claims a segment (FREE -> SENT) and writes in it; only the main thread
 * frees it (SENT -> FREE), once the batch has been read (`releaseColumns`, call-columns.ts). A batch whose
 * writer finds no segment free (the main thread is behind) is written in memory of its own and copied as
 * before, so a slow main thread never makes an io thread wait or lose a call.
 */

/** A segment's state word. */
export const SegmentState = { FREE: 0, SENT: 1 } as const;

/** Segments per io thread: the main thread reads a batch as it arrives, so a few cover its hiccups. */
export const SEGMENTS = 4;

export class ColumnSegments {
  /** One state word per segment. */
  readonly states: Int32Array;
  private readonly numbers: Float64Array;
  private readonly refs: Int32Array;

  /** Segments of `rows` rows, each row `numCols` numbers and `strCols` string references. */
  constructor(private readonly rows: number, private readonly numCols: number, private readonly strCols: number, readonly count = SEGMENTS) {
    // The states first, padded to 8 bytes so that the numbers are aligned for a Float64Array.
    const statesBytes = Math.ceil((count * 4) / 8) * 8;
    const numbersBytes = count * rows * numCols * 8;
    const buffer = new SharedArrayBuffer(statesBytes + numbersBytes + count * rows * strCols * 4);
    this.states = new Int32Array(buffer, 0, count);
    this.numbers = new Float64Array(buffer, statesBytes, count * rows * numCols);
    this.refs = new Int32Array(buffer, statesBytes + numbersBytes, count * rows * strCols);
  }

  /** A free segment, now SENT (the caller writes in it and sends it); -1 when every segment is still out. */
  claim(): number {
    for (let i = 0; i < this.count; i++) {
      if (Atomics.compareExchange(this.states, i, SegmentState.FREE, SegmentState.SENT) === SegmentState.FREE) return i;
    }
    return -1;
  }

  /** The numbers of segment `i` (all its rows). */
  numbersOf(i: number): Float64Array {
    const n = this.rows * this.numCols;
    return this.numbers.subarray(i * n, (i + 1) * n);
  }

  /** The string references of segment `i` (all its rows). */
  refsOf(i: number): Int32Array {
    const n = this.rows * this.strCols;
    return this.refs.subarray(i * n, (i + 1) * n);
  }
}
