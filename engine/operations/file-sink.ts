import fs from 'node:fs';
import path from 'node:path';
import type { pino } from 'pino';
import { fileDestination } from '../log/logger.js';

/** sonic-boom in 'buffer' content mode: its typings know only the string mode's write. */
type Boom = Omit<ReturnType<typeof pino.destination>, 'write'> & { write(bytes: Buffer): boolean };

/** Pending bytes past this size go to the file at once rather than at the end of the tick. */
const FLUSH_AT = 64 * 1024;

/**
 * An append-only log file written asynchronously (sonic-boom, as the main log): a write never waits for
 * the disk. `reopen` follows an external rotation (logrotate's copytruncate is not needed).
 *
 * What a tick gives is gathered and handed to sonic-boom once, as bytes: text lines are encoded once at
 * the end of the tick (sonic-boom measures and re-encodes a string at each of its steps: perf put that at a
 * sixth of the main thread's work under load), and batches already encoded (the access log's, `writeBytes`)
 * go as they are. Order is kept between the two.
 */
export class FileSink {
  private readonly out: Boom;
  private closed = false;
  /** Text since the last encoded piece. */
  private text = '';
  /** Encoded pieces in order, the text before each already among them. */
  private readonly pieces: Buffer[] = [];
  /** Bytes in `pieces`, plus the text's length (its UTF-8 size or less). */
  private size = 0;
  private scheduled = false;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // A full disk: lines wait (bounded), then are dropped; the process goes on (fileDestination).
    this.out = fileDestination(file, 'buffer') as unknown as Boom;
  }

  write(line: string): void {
    if (this.closed) return;
    this.text += line;
    this.size += line.length;
    this.gathered();
  }

  /** Bytes the file takes as they are (complete lines, UTF-8). The caller gives the Buffer up. */
  writeBytes(bytes: Buffer): void {
    if (this.closed || bytes.length === 0) return;
    this.encodeText();
    this.pieces.push(bytes);
    this.size += bytes.length;
    this.gathered();
  }

  private gathered(): void {
    if (this.size >= FLUSH_AT) this.flush();
    else if (!this.scheduled) { this.scheduled = true; setImmediate(this.flushSoon); }
  }

  private encodeText(): void {
    if (this.text === '') return;
    this.pieces.push(Buffer.from(this.text, 'utf8'));
    this.text = '';
  }

  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };

  private flush(): void {
    if (this.closed) return;
    this.encodeText();
    const pieces = this.pieces;
    if (pieces.length === 0) return;
    this.out.write(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
    pieces.length = 0;
    this.size = 0;
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
