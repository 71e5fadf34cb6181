/**
 * The memory an io thread's writers fill with the bytes they send at the end of the current turn of the
 * event loop (direct-write.ts): a response head with its body piece, a body piece that was only lent (a view
 * of a shared read buffer). Regions of 256 KiB, cut front to back during a turn and taken back when the
 * turn's writes are done.
 *
 * Why: a Buffer allocated for every piece is memory outside V8's heap that V8 still counts, and it counts
 * what was allocated since the last full collection against the old generation's limit. After a full
 * collection that limit sits a few MB above what lives, and an idle gateway gets one from V8's memory
 * reducer: a POST load of 10 KB bodies then allocated about 14 MB of pieces between two young collections,
 * passed that limit again and again, and ran about 15 full collections a second for as long as the load
 * lasted (a POST 10 KB call cost 44 µs of CPU after 10 s of idle against 24 µs before; 1 MiB uploads
 * 880 against 350 µs of user CPU a call). Pieces cut from regions that are reused allocate nothing.
 *
 * The contract: a piece taken here is valid until the end of the turn that took it, so it must be handed to a
 * writer in that turn and never kept. A write the kernel did not take whole is kept by libuv by reference:
 * the writer `hold`s the piece's region then and lets go (`unhold`) when libuv is done, and a region is
 * reused only at a turn's end with nothing held. The region being cut goes on past what libuv holds; a full
 * one is set aside for a free one, or a new one. Up to FREE_REGIONS regions wait for reuse, so a socket that
 * keeps pushing back cycles through them instead of allocating.
 */

/** The size of a region; a piece over half of it that does not fit in what is left gets a Buffer of its own. */
export const ARENA_BYTES = 256 * 1024;
/** Regions kept for reuse once libuv is done with them (1 MiB a thread at most). */
export const FREE_REGIONS = 4;

/** One region: its bytes, how many of them this turn (or libuv) uses, and how many writes libuv holds in it. */
export class Region {
  readonly bytes = new ArrayBuffer(ARENA_BYTES);
  used = 0;
  held = 0;
}

export class TurnArena {
  private current = new Region();
  /** Regions set aside (full, or cut from in this turn), until their pieces are sent and libuv lets go. */
  private readonly aside: Region[] = [];
  private readonly free: Region[] = [];
  /** Regions this thread allocated (the tests count them). */
  allocated = 1;

  /** `n` bytes to fill and hand to a writer in this turn. */
  take(n: number): Buffer {
    let r = this.current;
    if (n > ARENA_BYTES - r.used) {
      if (n > ARENA_BYTES / 2) return Buffer.allocUnsafe(n);
      this.aside.push(r);
      r = this.current = this.free.pop() ?? this.fresh();
    }
    const at = r.used;
    r.used = at + n;
    return Buffer.from(r.bytes, at, n);
  }

  /** A copy of `bytes` (a view that is only lent), valid for this turn. */
  copy(bytes: Uint8Array): Buffer {
    const b = this.take(bytes.length);
    b.set(bytes, 0);
    return b;
  }

  /** The region `b` was cut from, while its pieces may be in use; null for memory of its own. */
  regionOf(b: Uint8Array): Region | null {
    const ab = b.buffer;
    if (ab === this.current.bytes) return this.current;
    const aside = this.aside;
    for (let i = 0; i < aside.length; i++) if (aside[i]!.bytes === ab) return aside[i]!;
    return null;
  }

  /**
   * `b` was sent (the kernel took it whole): when it is the last piece cut, its bytes serve the next one.
   * A large body's pieces, each sent as soon as it is written, use the same bytes one after another.
   */
  release(b: Buffer): void {
    const r = this.current;
    if (b.buffer === r.bytes && b.byteOffset + b.length === r.used) r.used = b.byteOffset;
  }

  /** libuv keeps a reference to a piece of `r` (a write it could not finish at once). */
  hold(r: Region): void {
    r.held++;
  }

  /** libuv is done with a write that held a piece of `r`. */
  unhold(r: Region): void {
    r.held--;
  }

  /** The turn's writes are done: what libuv does not hold is free again. */
  endTurn(): void {
    const aside = this.aside;
    let kept = 0;
    for (let i = 0; i < aside.length; i++) {
      const r = aside[i]!;
      if (r.held !== 0) { aside[kept++] = r; continue; }
      r.used = 0;
      if (this.free.length < FREE_REGIONS) this.free.push(r);
    }
    aside.length = kept;
    // The current region goes on past what libuv holds of it, and from the front when it holds nothing.
    if (this.current.held === 0) this.current.used = 0;
  }

  /** Writes libuv holds pieces of, over every region (the tests read it). */
  get holding(): number {
    let n = this.current.held;
    for (let i = 0; i < this.aside.length; i++) n += this.aside[i]!.held;
    return n;
  }

  private fresh(): Region {
    this.allocated++;
    return new Region();
  }
}

/** The arena of this thread (a module is loaded once per worker thread). */
export const turnArena = new TurnArena();
