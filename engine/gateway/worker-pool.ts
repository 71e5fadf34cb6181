import type { Logger } from 'pino';

/** Something the pool admits: a message waiting for a slot. */
export interface Admittable {
  /** A slot is now the message's: it starts processing. */
  onSlot(): void;
}

export const Admission = {
  ADMITTED: 0,
  QUEUED: 1,
  REJECTED: 2,
} as const;
export type Admission = (typeof Admission)[keyof typeof Admission];

export interface WorkerPoolSettings {
  /** worker_pool_size_core: the pool's normal size; the busy alert measures against it. */
  readonly core: number;
  /** worker_pool_size_max: messages in process at once, at most. */
  readonly max: number;
  /** worker_pool_queue_length: messages waiting for a slot; -1 unbounded. */
  readonly queueLength: number;
}

/**
 * The bounded worker pool of the reference system, recast for a non-blocking engine: a "worker" is a
 * slot a message holds from admission to the end of its response. Up to `max` messages run at once; more
 * wait in a FIFO queue of `queueLength` (-1: unbounded); a full bounded queue refuses the message (503).
 * When more than half of the core size stayed busy on average over the last minute, the reference
 * system's SYSTEM ALERT is logged, at most once a minute.
 */
export class WorkerPool {
  active = 0;
  private readonly queue: Admittable[] = [];
  private queueHead = 0;
  /** Busy share (active / core), sampled once a second over the last minute. */
  private readonly samples = new Float64Array(60);
  private sampleCount = 0;
  private sampleIndex = 0;
  private lastAlert = Number.NEGATIVE_INFINITY;
  rejected = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(readonly settings: WorkerPoolSettings, private readonly log: Logger, private readonly now: () => number = Date.now) {
    this.timer = setInterval(() => this.sample(), 1000);
    this.timer.unref();
  }

  admit(m: Admittable): Admission {
    if (this.active < this.settings.max) {
      this.active++;
      return Admission.ADMITTED;
    }
    const waiting = this.queue.length - this.queueHead;
    if (this.settings.queueLength >= 0 && waiting >= this.settings.queueLength) {
      this.rejected++;
      return Admission.REJECTED;
    }
    this.queue.push(m);
    return Admission.QUEUED;
  }

  /** A message that held a slot is done: the next waiting one takes the slot. */
  release(): void {
    if (this.queueHead < this.queue.length) {
      const next = this.queue[this.queueHead]!;
      this.queue[this.queueHead++] = undefined as unknown as Admittable;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      next.onSlot();
      return;
    }
    this.active--;
  }

  /** A queued message went away before its turn. */
  withdraw(m: Admittable): boolean {
    const i = this.queue.indexOf(m, this.queueHead);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    return true;
  }

  get waiting(): number {
    return this.queue.length - this.queueHead;
  }

  /** Average busy share over the last minute; seconds not yet sampled (just after start) count as idle. */
  busyShare(): number {
    let sum = 0;
    for (let i = 0; i < this.sampleCount; i++) sum += this.samples[i]!;
    return sum / this.samples.length;
  }

  sample(): void {
    this.samples[this.sampleIndex] = Math.min(1, this.active / Math.max(1, this.settings.core));
    this.sampleIndex = (this.sampleIndex + 1) % this.samples.length;
    if (this.sampleCount < this.samples.length) this.sampleCount++;
    const share = this.busyShare();
    const now = this.now();
    if (share > 0.5 && now - this.lastAlert >= 60_000) {
      this.lastAlert = now;
      this.log.warn(`SYSTEM ALERT: ${Math.round(share * 100)}% of the worker threads were in BLOCKED state during last minute!`);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
