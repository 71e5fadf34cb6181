/** What the idle watch asks of a connection it watches. */
export interface IdleWatched {
  /** Milliseconds without a read or a write after which the connection is timed out (more than 0). */
  readonly idleLimitMs: number;
  /** The sweep's clock reads `now` (ms since the epoch): time the connection out if it has been idle too long. */
  checkIdle(now: number): void;
}

/** The sweep's period for a limit: an eighth of it, within [MIN_PERIOD_MS, MAX_PERIOD_MS]. */
const MIN_PERIOD_MS = 25;
const MAX_PERIOD_MS = 1000;

export function sweepPeriodFor(limitMs: number): number {
  return Math.min(MAX_PERIOD_MS, Math.max(MIN_PERIOD_MS, Math.floor(limitMs / 8)));
}

/**
 * The socket timeouts (`http.socket.timeout`) of one io thread's backend connections, kept by one coarse
 * timer instead of Node's socket timeout. Node restarts a socket's timeout on every read and every write
 * (`_unrefTimer`: a megamorphic symbol load per socket in the chain and a move in the timer list, about 880
 * instructions a proxied call by callgrind, 2026-11-28); a connection watched here notes the time of its
 * reads and writes in a field, and the sweep compares. A connection times out between its limit and its
 * limit plus the sweep's period, an eighth of the smallest limit watched (25 ms to 1 s). The timer does not
 * keep the thread alive, and stops when nothing is watched.
 */
export class IdleWatch {
  private readonly watched = new Set<IdleWatched>();
  private timer: NodeJS.Timeout | null = null;
  private periodMs = 0;

  watch(c: IdleWatched): void {
    this.watched.add(c);
    const period = sweepPeriodFor(c.idleLimitMs);
    if (this.timer === null || period < this.periodMs) this.arm(period);
  }

  unwatch(c: IdleWatched): void {
    if (!this.watched.delete(c) || this.watched.size > 0 || this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
  }

  get size(): number {
    return this.watched.size;
  }

  get sweepPeriodMs(): number {
    return this.timer === null ? 0 : this.periodMs;
  }

  private arm(period: number): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.periodMs = period;
    this.timer = setInterval(this.sweep, period);
    this.timer.unref();
  }

  // A connection that times out leaves the set during the loop: a Set's iteration allows that.
  private readonly sweep = (): void => {
    const now = Date.now();
    for (const c of this.watched) c.checkIdle(now);
  };
}

/** This thread's watch (each io thread has its own module instance). */
export const idleWatch = new IdleWatch();
