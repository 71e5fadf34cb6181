/**
 * The memory an io thread's writers fill with the bytes they send at the end of the current turn of the
 * event loop (direct-write.ts): a response head with its body piece, a body piece that was only lent (a view
 * of a shared read buffer). One region per thread, handed out front to back during a turn and taken back
 * whole when the turn's writes are done.
 *
 * Why: a Buffer allocated for every piece is memory outside V8's heap that V8 still counts, and it counts
 * what was allocated since the last full collection against the old generation's limit. After a full
 * collection that limit sits a few MB above what lives, and an idle gateway gets one from V8's memory
 * reducer: a POST load of 10 KB bodies then allocated about 14 MB of pieces between two young collections,
 * passed that limit again and again, and ran about 15 full collections a second for as long as the load
 * lasted (a POST 10 KB call cost 44 µs of CPU after 10 s of idle against 24 µs before; 1 MiB uploads
 * 880 against 350 µs a call). Pieces cut from a region that is reused allocate nothing.
 *
 * The contract: a piece taken here is valid until the end of the turn that took it, so it must be handed to a
 * writer in that turn and never kept. A writer that cannot send its pieces at once (libuv keeps a reference
 * to what the kernel did not take) retires the region: the next piece comes from a new one, and the old one
 * lives as long as libuv holds it. Retiring happens when a socket starts to push back, not while it does:
 * a writer with bytes outstanding takes no pieces from here (see DirectWriter).
 */

/** The size of a region; a piece bigger than what is left of it gets a Buffer of its own. */
export const ARENA_BYTES = 256 * 1024;

export class TurnArena {
  private region: ArrayBuffer = new ArrayBuffer(ARENA_BYTES);
  private used = 0;
  /** Regions this thread retired, for the lifetime of their pieces in libuv (counted for the tests). */
  retired = 0;

  /** `n` bytes to fill and hand to a writer in this turn; a Buffer of its own when the region has no room. */
  take(n: number): Buffer {
    const at = this.used;
    if (n > ARENA_BYTES - at) return Buffer.allocUnsafe(n);
    this.used = at + n;
    return Buffer.from(this.region, at, n);
  }

  /** A copy of `bytes` (a view that is only lent), valid for this turn. */
  copy(bytes: Uint8Array): Buffer {
    const b = this.take(bytes.length);
    b.set(bytes, 0);
    return b;
  }

  /** Whether `b` was cut from the current region. */
  holds(b: Buffer): boolean {
    return b.buffer === this.region;
  }

  /**
   * `b` was sent (the kernel took it whole): when it is the last piece taken, its bytes serve the next one.
   * A large body's pieces, each sent as soon as it is written, use the same bytes one after another.
   */
  release(b: Buffer): void {
    if (b.buffer === this.region && b.byteOffset + b.length === this.used) this.used = b.byteOffset;
  }

  /** libuv keeps a reference to pieces of the current region: the next piece comes from a new one. */
  retire(): void {
    this.region = new ArrayBuffer(ARENA_BYTES);
    this.used = 0;
    this.retired++;
  }

  /** The turn's writes are done (each sent at once, or the region was retired): the region is free again. */
  endTurn(): void {
    this.used = 0;
  }
}

/** The arena of this thread (a module is loaded once per worker thread). */
export const turnArena = new TurnArena();
