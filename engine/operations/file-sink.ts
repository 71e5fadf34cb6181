import fs from 'node:fs';
import path from 'node:path';
import type { pino } from 'pino';
import { fileDestination } from '../log/logger.js';

type Boom = ReturnType<typeof pino.destination>;

/** Pending text past this size goes to the file at once rather than at the end of the tick. */
const FLUSH_AT = 64 * 1024;

/**
 * An append-only log file written asynchronously (sonic-boom, as the main log): a write never waits for
 * the disk. `reopen` follows an external rotation (logrotate's copytruncate is not needed).
 *
 * Lines are gathered and handed to sonic-boom once per tick: sonic-boom measures the UTF-8 length of its
 * whole pending buffer on every write, which made a line per call cost O(buffer) in the main thread.
 */
export class FileSink {
  private readonly out: Boom;
  private closed = false;
  private pending = '';
  private scheduled = false;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // A full disk: lines wait (bounded), then are dropped; the process goes on (fileDestination).
    this.out = fileDestination(file);
  }

  write(line: string): void {
    if (this.closed) return;
    this.pending += line;
    if (this.pending.length >= FLUSH_AT) this.flush();
    else if (!this.scheduled) { this.scheduled = true; setImmediate(this.flushSoon); }
  }

  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };

  private flush(): void {
    if (this.pending === '' || this.closed) return;
    const text = this.pending;
    this.pending = '';
    this.out.write(text);
  }

  reopen(): void {
    this.flush();
    if (!this.closed) this.out.reopen();
  }

  /** Writes what is buffered and closes the file. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.flush();
    this.closed = true;
    return new Promise((resolve) => {
      const done = (): void => resolve();
      try {
        this.out.once('close', done);
        this.out.once('error', done);
        this.out.end();
      } catch {
        resolve();
      }
    });
  }
}
