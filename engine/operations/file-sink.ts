import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';

type Boom = ReturnType<typeof pino.destination>;

/**
 * An append-only log file written asynchronously (sonic-boom, as the main log): a write never waits for
 * the disk. `reopen` follows an external rotation (logrotate's copytruncate is not needed).
 */
export class FileSink {
  private readonly out: Boom;
  private closed = false;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.out = pino.destination({ dest: file, sync: false, append: true, mkdir: true });
  }

  write(line: string): void {
    if (!this.closed) this.out.write(line);
  }

  reopen(): void {
    if (!this.closed) this.out.reopen();
  }

  /** Writes what is buffered and closes the file. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
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
