/**
 * `n/N` and the time left for a run of many measured loads (npm run bench): printed before each load, so an
 * operator watching a ten-minute run knows where it is. The time left is the remaining loads at the mean
 * time the finished ones took (start-up of the products included), or at their planned length before any finished.
 */
export class Progress {
  private done = 0;
  private readonly started = Date.now();

  constructor(private readonly total: number, private readonly plannedSecondsEach: number, private readonly out: NodeJS.WritableStream = process.stdout) {}

  /** Before a load: `[ 3/58  9m 12s left] what`. */
  next(what: string): void {
    const n = this.done + 1;
    const each = this.done > 0 ? (Date.now() - this.started) / 1000 / this.done : this.plannedSecondsEach;
    const left = Math.max(0, Math.round((this.total - this.done) * each));
    this.out.write(`[${String(n).padStart(String(this.total).length)}/${this.total}  ${formatSeconds(left)} left] ${what}\n`);
  }

  /** After a load. */
  finished(): void {
    this.done++;
  }
}

export function formatSeconds(s: number): string {
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m ${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
