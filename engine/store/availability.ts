/**
 * Whether a store can be used now, learnt from the statements that run on it: a statement that fails because
 * the store is unavailable (a full disk, an I/O error, PostgreSQL gone or restarting) marks it down; the next
 * write that succeeds marks it up again. While it is down a probe write runs every `probeMs`, so that the
 * store comes back up even when nothing else writes (the node is out of its load balancer while it is not
 * ready). Nothing runs while the store is up: noting a success is one field read.
 */
export class StoreAvailability {
  /** What made the store unavailable, null while it is available. */
  problem: Error | null = null;
  /** When it became unavailable (epoch ms), 0 while it is available. */
  since = 0;
  /** Statements that failed while it was down, after the first (the probes' included). */
  failures = 0;
  /** Called when the store goes down (with the problem) and when it is back (null, with how long it was down). */
  onChange: ((problem: Error | null, downMs: number, failures: number) => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly probe: () => Promise<void>, private readonly probeMs = 1000) {}

  get available(): boolean {
    return this.problem === null;
  }

  /** A statement failed because the store is unavailable. */
  failed(err: Error): void {
    if (this.problem !== null) { this.failures++; return; }
    this.problem = err;
    this.since = Date.now();
    this.failures = 0;
    this.onChange?.(err, 0, 0);
    this.schedule();
  }

  /** A write went through. */
  succeeded(): void {
    if (this.problem === null) return;
    const downMs = Date.now() - this.since;
    const failures = this.failures;
    this.problem = null;
    this.since = 0;
    this.failures = 0;
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
    this.onChange?.(null, downMs, failures);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // The probe's own failure or success is noted by the store like any statement's.
      this.probe().catch(() => {}).finally(() => { if (this.problem !== null) this.schedule(); });
    }, this.probeMs);
    this.timer.unref();
  }
}
