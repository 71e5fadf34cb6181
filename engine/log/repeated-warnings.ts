import type { Logger } from 'pino';

export interface RepeatedWarningsOptions {
  /** How long a kind of warning stays quiet after it was logged. Default 10 s. */
  readonly windowMs?: number;
  /** Kinds tracked at once; past this, new kinds share one counter. Default 256. */
  readonly maxKinds?: number;
}

type Level = 'info' | 'warn' | 'error';

interface Kind {
  level: Level;
  msg: string;
  /** The fields of the last occurrence that was counted, not logged. */
  fields: Record<string, unknown> | null;
  suppressed: number;
  timer: NodeJS.Timeout | null;
}

const OVERFLOW = '\u0000other kinds';

/**
 * Warnings that can come once per call (a dead backend, a full disk, a full queue) logged at a bounded rate:
 * the first of a kind at once, then nothing for `windowMs` while later ones are counted; at the end of the
 * window one line with the last occurrence's fields and `suppressed: N` (and the message says how many),
 * and the window starts again. A kind quiet for a whole window is forgotten, so its next warning is logged
 * at once. A dead backend under load writes one line per window instead of one per failed call.
 *
 * The kind is the caller's key for "the same warning" (the code and the backend, say): keep it to a bounded
 * set of values. Costs a Map lookup per warning; one timer per kind that has something counted.
 */
export class RepeatedWarnings {
  private readonly byKind = new Map<string, Kind>();
  private readonly windowMs: number;
  private readonly maxKinds: number;

  constructor(private readonly log: Logger, o: RepeatedWarningsOptions = {}) {
    this.windowMs = o.windowMs ?? 10_000;
    this.maxKinds = o.maxKinds ?? 256;
  }

  warn(kind: string, fields: Record<string, unknown>, msg: string): void {
    this.note('warn', kind, fields, msg);
  }

  error(kind: string, fields: Record<string, unknown>, msg: string): void {
    this.note('error', kind, fields, msg);
  }

  /** An info line that can repeat as often (a recovery after each failure of a flapping resource). */
  info(kind: string, fields: Record<string, unknown>, msg: string): void {
    this.note('info', kind, fields, msg);
  }

  /** Kinds tracked now (for tests and metrics). */
  get kinds(): number {
    return this.byKind.size;
  }

  /** Writes the counts still pending and forgets every kind (the thread or node stops). */
  stop(): void {
    for (const k of this.byKind.values()) {
      if (k.timer !== null) clearTimeout(k.timer);
      k.timer = null;
      this.summarise(k);
    }
    this.byKind.clear();
  }

  private note(level: Level, key: string, fields: Record<string, unknown>, msg: string): void {
    let kind = this.byKind.get(key);
    if (kind === undefined && this.byKind.size >= this.maxKinds) {
      key = OVERFLOW;
      kind = this.byKind.get(key);
    }
    if (kind !== undefined) {
      kind.suppressed++;
      kind.fields = fields;
      kind.level = level;
      kind.msg = msg;
      return;
    }
    this.log[level](fields, msg);
    const k: Kind = { level, msg, fields: null, suppressed: 0, timer: null };
    this.byKind.set(key, k);
    this.arm(key, k);
  }

  private arm(key: string, k: Kind): void {
    k.timer = setTimeout(() => {
      k.timer = null;
      if (k.suppressed === 0) { this.byKind.delete(key); return; }
      this.summarise(k);
      this.arm(key, k);
    }, this.windowMs);
    k.timer.unref();
  }

  private summarise(k: Kind): void {
    if (k.suppressed === 0) return;
    const n = k.suppressed;
    const fields = { ...k.fields, suppressed: n, windowMs: this.windowMs };
    k.suppressed = 0;
    k.fields = null;
    this.log[k.level](fields, `${k.msg} (${n} more like this in the last ${this.windowMs / 1000} s)`);
  }
}
