/**
 * The end of the current turn of the event loop, and the turn's clock, for one thread.
 *
 * A turn here is what runs between two waits for I/O: the poll phase's socket callbacks (and the timers
 * before them), up to the check phase right after, where one setImmediate, scheduled by whoever needs the
 * turn's end first, runs the end-of-turn work. A pending immediate keeps libuv from blocking in its poll,
 * so that work always runs before the thread next waits.
 *
 * What ends with the turn:
 * - the clock (`turnNow`): the wall-clock time read once per turn, as nginx updates its cached time once
 *   per event-loop iteration. A proxied call asks for the time three to five times (the connection's read and
 *   idle times, the Date header, a cached token's expiry, the throttle window), and each `Date.now()` is a
 *   call into V8's runtime (about 215 instructions by callgrind). Every value read during a turn is the
 *   turn's first reading: at most one turn old (a turn of a loaded io thread lasts well under a
 *   millisecond; docs/decisions.md says why that is safe for expiry and windows);
 * - the writers' gathered bytes (direct-write.ts registers its flush).
 */

let scheduled = false;
let clock = 0;
let writersHook: (() => void) | null = null;

function endOfTurn(): void {
  scheduled = false;
  // The clock first: what the writers' flush runs (an error answered) reads a fresh one.
  clock = 0;
  writersHook?.();
}

/** The end-of-turn work runs at this turn's end (one setImmediate per turn, whoever asks first). */
export function endTurnSoon(): void {
  if (!scheduled) { scheduled = true; setImmediate(endOfTurn); }
}

/** Sets the writers' end-of-turn flush (direct-write.ts, once per thread at load). */
export function setTurnWriterFlush(flush: () => void): void {
  writersHook = flush;
}

/** Milliseconds since the epoch, as `Date.now()` read once in this turn. */
export function turnNow(): number {
  if (clock === 0) {
    clock = Date.now();
    endTurnSoon();
  }
  return clock;
}
