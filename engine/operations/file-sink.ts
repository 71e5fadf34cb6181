import fs from 'node:fs';
import path from 'node:path';
import { MAX_PENDING_BYTES, cannotWriteNotice, writingAgainNotice } from '../log/logger.js';

/** Gathered bytes past this size go to the file at once rather than at the end of the tick. */
const FLUSH_AT = 64 * 1024;
/** The blocks bytes are gathered in and written from. */
const BLOCK = 256 * 1024;
/** Written blocks kept for use again (2 MiB); more are made only while the disk lags, within MAX_PENDING_BYTES. */
const KEEP_FREE = 8;
/** While the file cannot be written (or opened), the time before the next try. */
const RETRY_MS = 1000;

/** A block of gathered bytes: `len` of them, the first `off` already written. */
interface Block {
  readonly buf: Buffer;
  len: number;
  off: number;
}

/** Sinks not closed yet: what they hold is written synchronously when the process exits. */
const OPEN = new Set<FileSink>();
let exitHooked = false;

/**
 * An append-only log file (the access log, analytics, tracing) written asynchronously: a write never waits
 * for the disk. `reopen` follows an external rotation (logrotate's copytruncate is not needed).
 *
 * What a tick gives is gathered in blocks of bytes that are written in order and then used again: text
 * lines are encoded once at the end of the tick, and batches already encoded (the access log's,
 * `writeBytes`) are copied in. Why blocks kept for use again, not a Buffer per write (as sonic-boom, which
 * this sink used before, makes and joins them): V8 counts an ArrayBuffer's memory against the heap's limit
 * until it is collected, and the main thread, which scavenges only every second or so under load, wrote
 * its access log faster than that; it then ran a full mark-compact about every 1.2 s (docs/performance.md,
 * stop 41). The blocks are made once.
 *
 * A file that cannot be written (a full disk): the failure is said once on stderr, what waits is capped at
 * MAX_PENDING_BYTES (what comes past it is dropped), writing is tried again every RETRY_MS, and the return
 * is said once too. `close` answers at once then, dropping what waits, as the disk would lose it.
 */
export class FileSink {
  private fd: number | null = null;
  private closed = false;
  /** Text since the last encoded piece. */
  private text = '';
  /** Full blocks, in order, before `current`; each is written from its `off`. */
  private readonly queue: Block[] = [];
  /** The block being gathered in: written as far as it is gathered, while more is gathered after that. */
  private current: Block | null = null;
  /** The block a write under way is writing (null: no write under way), and where that write ends in it. */
  private inflight: Block | null = null;
  private inflightEnd = 0;
  private readonly free: Buffer[] = [];
  /** Bytes gathered and not yet written (blocks and text). */
  private pending = 0;
  /** Bytes gathered since the last flush, the text's counted by its length. */
  private gathered = 0;
  private scheduled = false;
  private failing = false;
  private retry: NodeJS.Timeout | null = null;
  private reopenWanted = false;
  private closing: (() => void) | null = null;
  /** Closed, and what waited written or dropped: the file is not opened or written again. */
  private done = false;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.open();
    OPEN.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => { for (const s of OPEN) s.writeAtExit(); });
    }
  }

  write(line: string): void {
    if (this.closed) return;
    this.text += line;
    this.gathered += line.length;
    this.afterGathering();
  }

  /** Bytes the file takes as they are (complete lines, UTF-8): copied, so the caller may use its buffer again. */
  writeBytes(bytes: Uint8Array): void {
    if (this.closed || bytes.length === 0) return;
    this.encodeText();
    this.append(bytes);
    this.gathered += bytes.length;
    this.afterGathering();
  }

  private afterGathering(): void {
    if (this.gathered >= FLUSH_AT) this.flush();
    else if (!this.scheduled) { this.scheduled = true; setImmediate(this.flushSoon); }
  }

  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** The text gathered, into the blocks as UTF-8. */
  private encodeText(): void {
    const text = this.text;
    if (text === '') return;
    this.text = '';
    const n = Buffer.byteLength(text, 'utf8');
    if (this.pending + n > MAX_PENDING_BYTES) return;
    const cur = this.room();
    if (n <= BLOCK - cur.len) {
      cur.len += cur.buf.write(text, cur.len, 'utf8');
      this.pending += n;
    } else {
      // Longer than the block's room: encoded apart and copied across blocks (text lines are few and short).
      this.append(Buffer.from(text, 'utf8'));
    }
  }

  /** Copies `bytes` into the blocks, or drops them all when they would take the bytes waiting past the cap. */
  private append(bytes: Uint8Array): void {
    const n = bytes.length;
    if (this.pending + n > MAX_PENDING_BYTES) return;
    let at = 0;
    while (at < n) {
      const cur = this.room();
      const k = Math.min(BLOCK - cur.len, n - at);
      cur.buf.set(bytes.subarray(at, at + k), cur.len);
      cur.len += k;
      at += k;
    }
    this.pending += n;
  }

  /**
   * The block being gathered in, with room for at least one byte. A full one joins the queue: blocks are
   * queued only full, so what waits takes no more memory than its bytes and one block.
   */
  private room(): Block {
    const cur = this.current;
    if (cur !== null && cur.len < BLOCK) return cur;
    if (cur !== null) this.queue.push(cur);
    const next: Block = { buf: this.free.pop() ?? Buffer.allocUnsafeSlow(BLOCK), len: 0, off: 0 };
    this.current = next;
    return next;
  }

  private flush(): void {
    if (this.done) return;
    this.encodeText();
    this.gathered = 0;
    this.pump();
  }

  /** The oldest block with bytes not yet written (or being written): the queue's first, else the current one. */
  private oldest(): Block | null {
    const b = this.queue[0] ?? this.current;
    return b !== null && b !== undefined && b.off < b.len ? b : null;
  }

  /** Writes what waits in the oldest block, unless a write is under way, a retry is due, or nothing waits. */
  private pump(): void {
    if (this.inflight !== null || this.retry !== null || this.done) return;
    if (this.fd === null && !this.open()) return;
    const b = this.oldest();
    if (b === null) { this.closeIfDone(); return; }
    this.inflight = b;
    this.inflightEnd = b.len;
    fs.write(this.fd!, b.buf, b.off, b.len - b.off, null, this.onWritten);
  }

  private readonly onWritten = (err: NodeJS.ErrnoException | null, n: number): void => {
    const b = this.inflight!;
    this.inflight = null;
    if (err) { this.fail(err); return; }
    b.off += n;
    this.pending -= n;
    if (b.off >= b.len) {
      if (b === this.queue[0]) {
        this.queue.shift();
        if (this.free.length < KEEP_FREE) this.free.push(b.buf);
      } else {
        // The current block, written as far as it was gathered: gathered into again from its start.
        b.off = 0;
        b.len = 0;
      }
    }
    if (this.failing) {
      this.failing = false;
      process.stderr.write(writingAgainNotice(this.file));
    }
    if (this.reopenWanted) this.reopenNow();
    this.pump();
  };

  /** The file could not be written or opened: said once; tried again later; a close answers at once. */
  private fail(err: NodeJS.ErrnoException): void {
    if (!this.failing) {
      this.failing = true;
      process.stderr.write(cannotWriteNotice(this.file, err));
    }
    if (this.closing !== null) { this.closeIfDone(); return; }
    if (this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.reopenWanted) this.reopenNow();
      this.pump();
    }, RETRY_MS);
    this.retry.unref();
  }

  /** Opens the file for appending; false (and a retry set) when it cannot be. */
  private open(): boolean {
    try {
      this.fd = fs.openSync(this.file, 'a');
      return true;
    } catch (err) {
      this.fd = null;
      this.fail(err as NodeJS.ErrnoException);
      return false;
    }
  }

  /** Follows an external rotation: a write under way ends in the old file; what waits goes to the new one. */
  reopen(): void {
    if (this.closed) return;
    this.flush();
    if (this.inflight !== null) this.reopenWanted = true;
    else this.reopenNow();
  }

  private reopenNow(): void {
    this.reopenWanted = false;
    this.closeFd();
    if (this.open()) this.pump();
  }

  private closeFd(): void {
    if (this.fd === null) return;
    try { fs.closeSync(this.fd); } catch { /* already gone */ }
    this.fd = null;
  }

  /** Writes what is gathered and closes the file; answers once it is written, or at once if it cannot be. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.flush();
    this.closed = true;
    return new Promise((resolve) => {
      this.closing = resolve;
      this.closeIfDone();
    });
  }

  /** A close waits for the writes under way and those waiting, unless the file cannot be written. */
  private closeIfDone(): void {
    const answer = this.closing;
    if (answer === null || this.inflight !== null || (this.oldest() !== null && !this.failing && this.fd !== null)) return;
    this.closing = null;
    this.done = true;
    if (this.retry !== null) { clearTimeout(this.retry); this.retry = null; }
    this.queue.length = 0;
    this.current = null;
    this.pending = 0;
    this.closeFd();
    OPEN.delete(this);
    answer();
  }

  /** The process is exiting (its loop will not run again): what waits is written synchronously. */
  private writeAtExit(): void {
    if (this.failing || this.fd === null) return;
    this.encodeText();
    const blocks = this.current !== null ? [...this.queue, this.current] : this.queue;
    for (const b of blocks) {
      // A write under way in the thread pool may complete or not: its bytes are left to it.
      if (b === this.inflight) b.off = this.inflightEnd;
      try {
        while (b.off < b.len) b.off += fs.writeSync(this.fd, b.buf, b.off, b.len - b.off);
      } catch {
        return;
      }
    }
  }
}
