import type net from 'node:net';
import type { SocketOut } from '../direct-write.js';
import type { RequestHead } from './request-head.js';
import type { DoorRefusal } from './refusals.js';
import { turnNow } from '../event-turn.js';
import { KeptJoin, KeptLine } from '../kept-line.js';
import { NumberLines, type ResponseNumbers } from '../number-lines.js';
import { chunkLength, putChunk } from '../chunk-framing.js';

/**
 * What an exchange, and whoever answers it, needs of its client connection (ClientConnection, which creates
 * the exchanges: the import runs from the connection to the exchange only).
 */
export interface ExchangeConnection {
  /** Where the responses' bytes go (straight to a plain socket's handle when the stream holds nothing). */
  readonly out: SocketOut;
  readonly secure: boolean;
  readonly remoteAddress: string;
  readonly closed: boolean;
  /** The gateway is stopping: the current exchange is the last one. */
  readonly draining: boolean;
  /** Bytes of request bodies held for exchanges waiting their turn. */
  queuedBytes: number;
  /** Bytes that came after an upgrade request's head (the first WebSocket frames). */
  readonly upgradeRest: Buffer | null;
  pauseReading(x: ClientExchange): void;
  resumeReading(x: ClientExchange): void;
  /** A write returned false: the send timeout runs until the socket drains. */
  noteBackPressure(): void;
  /** The exchange's response ended: the next one's turn, or the close. */
  exchangeEnded(x: ClientExchange): void;
  /** Hands the socket over (a WebSocket session). */
  upgrade(): net.Socket;
  destroy(): void;
}

/** What the one who answers an exchange (the gateway's MessageContext) hears from it. */
export interface ExchangeHandler {
  /**
   * A piece of the request body, only lent: valid during this call (it may be a view of the connection's
   * read buffer, which the next read fills), so a handler that keeps it keeps a copy; `last` on the final one.
   */
  onRequestBody(chunk: Buffer | null, last: boolean): void;
  /** The request's body broke the framing rules after its head was accepted: answer `r` if nothing is out yet. */
  onRequestError(r: DoorRefusal): void;
  /** The connection closed before the response ended (the client left, or a timeout). */
  onClientGone(): void;
  /** The client took what was waiting after `write` returned false. */
  onWritable(): void;
}

/** Body framing towards the client, given to `writeHead`. */
export const BodyFraming = {
  /** No body and no framing header (HEAD, 204, 304; a HEAD passes its own Content-Length in the head). */
  NONE: -1,
  /** Length unknown: chunked for HTTP/1.1 clients, ended by closing the connection for HTTP/1.0 ones. */
  STREAM: -2,
} as const;

const LAST_CHUNK = '0\r\n\r\n';

// The Date header, formatted once a second (RFC 9110 §6.6.1: an origin with a clock sends it).
let dateSecond = 0;
let dateLine = '';
function currentDateLine(): string {
  const now = turnNow();
  const s = (now / 1000) | 0;
  if (s !== dateSecond) {
    dateSecond = s;
    dateLine = `date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateLine;
}

// The status line of the previous response kept as text, under its code and reason; the Content-Length
// line through kept-line.ts (about 500 instructions a response by callgrind for the two).
let lastStatus = 0;
let lastStatusText = '';
let lastStatusLine = '';
function statusLine(status: number, statusText: string): string {
  if (status !== lastStatus || statusText !== lastStatusText) {
    lastStatus = status;
    lastStatusText = statusText;
    lastStatusLine = `HTTP/1.1 ${status} ${statusText}\r\n`;
  }
  return lastStatusLine;
}
const contentLengthLine = new KeptLine<number>('content-length: ');
/** The previous response's head, while its pieces repeat (kept-line.ts). */
const keptHead = new KeptJoin();
/** The same without the blank line, for heads with numbers after it. */
const keptHeadOpen = new KeptJoin('');
/** The numbers' lines of the last head that had them (number-lines.ts). */
const numberLines = new NumberLines();

/**
 * One request and its response on a client connection (HTTP/1.1 exchanges on a connection are answered in
 * order: the connection makes one exchange active at a time). The request half is its head and body events;
 * the response half writes the status line, the head and the body with the framing this client needs.
 * Writes are buffered by the socket: `write` returning false is back-pressure, never a lost byte.
 */
export class ClientExchange {
  handler: ExchangeHandler | null = null;
  /** Body pieces that arrived before a handler was set (the exchange waited behind another). */
  private early: Buffer[] | null = null;
  private earlyEnd = false;
  /** The request body has been read to its end (or there was none). */
  bodyComplete = false;
  /** A refusal found in this request's body while it waited behind another exchange. */
  pendingError: DoorRefusal | null = null;
  // ---- the response ----
  /** The status line and head, kept until the first body write so that both leave in one write. */
  private headText: string | null = null;
  /** The same as bytes when the head is a kept one (KeptJoin.bytes), else null. */
  private headBytes: Buffer | null = null;
  /** Numeric fields written after the head as bytes (number-lines.ts), and then the blank line. */
  private numbers: ResponseNumbers | null = null;
  headWritten = false;
  private chunked = false;
  /** The connection closes after this response. */
  closeAfter = false;
  ended = false;
  bytesOut = 0;
  constructor(readonly conn: ExchangeConnection, readonly head: RequestHead) {}

  get clientIp(): string { return this.conn.remoteAddress; }
  get secure(): boolean { return this.conn.secure; }
  get gone(): boolean { return this.conn.closed; }

  /** Sets the handler; body pieces that arrived before it are delivered now. */
  attach(h: ExchangeHandler): void {
    this.handler = h;
    const early = this.early;
    this.early = null;
    if (early !== null) for (const b of early) this.conn.queuedBytes -= b.length;
    if (early !== null) for (let i = 0; i < early.length; i++) h.onRequestBody(early[i]!, this.earlyEnd && i === early.length - 1);
    else if (this.earlyEnd) h.onRequestBody(null, true);
    if (this.pendingError !== null) { const e = this.pendingError; this.pendingError = null; h.onRequestError(e); }
  }

  /** The connection's parser: a piece of this request's body. */
  deliverBody(chunk: Buffer | null, last: boolean): void {
    if (last) this.bodyComplete = true;
    const h = this.handler;
    if (h !== null) { h.onRequestBody(chunk, last); return; }
    // The piece is only lent (a view of the read buffer): what waits for the handler is a copy.
    if (chunk !== null) { (this.early ??= []).push(Buffer.from(chunk)); this.conn.queuedBytes += chunk.length; }
    if (last) this.earlyEnd = true;
  }

  /**
   * The body is wanted now: a client that sent `Expect: 100-continue` is told to send it (RFC 9110
   * §10.1.1). Sent only when the body will be read, so a call refused before that is answered without it.
   */
  continueBody(): void {
    if (this.continued || !this.head.expectContinue || this.bodyComplete || this.headWritten || this.head.minor !== 1 || this.conn.closed) return;
    this.continued = true;
    this.conn.out.writeLatin1('HTTP/1.1 100 Continue\r\n\r\n');
  }

  private continued = false;

  /** Stop / resume reading the request body (back-pressure from the backend). */
  pauseBody(): void { this.conn.pauseReading(this); }
  resumeBody(): void { this.conn.resumeReading(this); }

  /**
   * The status line and head. `headerLines` is `name: value\r\n` lines (the caller's rules were applied);
   * `framing` is a Content-Length (>= 0) or a BodyFraming. Date, the framing header and Connection are
   * added here. `numbers` are fields whose values change from call to call (X-RateLimit-Remaining): they
   * are written as bytes after the rest, which stays the kept head. Nothing is written until the first body
   * piece or the end.
   */
  writeHead(status: number, statusText: string, headerLines: string, framing: number, forceClose = false, numbers: ResponseNumbers | null = null): void {
    const c = this.conn;
    if (forceClose || !this.head.keepAlive || c.draining || (!this.bodyComplete && this.head.hasBody) || this.pendingError !== null) this.closeAfter = true;
    let framingLine = '';
    if (framing >= 0) framingLine = contentLengthLine.of(framing);
    else if (framing === BodyFraming.STREAM) {
      if (this.head.minor === 1) { this.chunked = true; framingLine = 'transfer-encoding: chunked\r\n'; }
      else this.closeAfter = true; // HTTP/1.0: the close ends the body
    }
    let connection = '';
    if (this.closeAfter) connection = 'connection: close\r\n';
    else if (this.head.minor === 0) connection = 'connection: keep-alive\r\n';
    const line = statusLine(status, statusText);
    const date = currentDateLine();
    const kept = numbers === null ? keptHead : keptHeadOpen;
    this.headText = kept.of(line, headerLines, date, framingLine, connection);
    this.headBytes = kept.bytes;
    this.numbers = numbers;
  }

  /**
   * The numbers' lines for the head about to be written (null: it has none). They are good until the next
   * head's, so the caller copies them before it returns.
   */
  private takeNumberLines(): Buffer | null {
    const numbers = this.numbers;
    if (numbers === null) return null;
    this.numbers = null;
    return numberLines.of(numbers);
  }

  /** Writes the head into `out` at 0 (room made for it, `lines` and a blank line after it); returns where it ends. */
  private putHead(out: Buffer, head: string, lines: Buffer | null): number {
    const bytes = this.headBytes;
    this.headBytes = null;
    let at: number;
    if (bytes !== null) { out.set(bytes, 0); at = bytes.length; } else at = out.write(head, 0, 'latin1');
    if (lines !== null) {
      out.set(lines, at);
      at += lines.length;
      out[at++] = 13; out[at++] = 10;
    }
    return at;
  }

  /**
   * A piece of the response body; false when the client's socket is full (wait for onWritable). The piece
   * may be a view of a buffer that is reused after this call (the sender's read buffer): the socket keeps a
   * reference to what it cannot send at once, so what goes to it is always a copy, made once with the head
   * and the chunk framing around it (one write, one system call), in the writer's memory of the turn
   * (SocketOut.scratch: no allocation while the client takes what it is sent).
   */
  write(chunk: Buffer): boolean {
    if (this.ended || this.conn.closed) return true;
    if (chunk.length === 0) return true;
    this.bytesOut += chunk.length;
    const head = this.headText;
    this.headText = null;
    const lines = head === null ? null : this.takeNumberLines();
    const headLength = head === null ? 0 : lines === null ? head.length : head.length + lines.length + 2;
    let out: Buffer;
    if (this.chunked) {
      const size = chunk.length.toString(16);
      out = this.conn.out.scratch(headLength + chunkLength(size, chunk.length));
      putChunk(out, head === null ? 0 : this.putHead(out, head, lines), size, chunk);
    } else {
      out = this.conn.out.scratch(headLength + chunk.length);
      const at = head === null ? 0 : this.putHead(out, head, lines);
      out.set(chunk, at);
    }
    if (head !== null) this.headWritten = true;
    return this.send(out);
  }

  /** Gives a piece to the connection's writer (it leaves at the end of this turn). False is back-pressure. */
  private send(out: Buffer): boolean {
    const ok = this.conn.out.write(out);
    if (!ok) this.conn.noteBackPressure();
    return ok;
  }

  /** Ends the response (with a last piece when given). The connection goes on with the next exchange or closes. */
  end(chunk?: Buffer | null): void {
    if (this.ended) return;
    const c = this.conn;
    if (c.closed) { this.ended = true; c.exchangeEnded(this); return; }
    const o = c.out;
    if (chunk != null && chunk.length > 0) this.write(chunk);
    const head = this.headText;
    if (head !== null) {
      // No body was written: the head (and the empty chunked body) in one write.
      this.headText = null;
      const lines = this.takeNumberLines();
      if (lines === null) {
        this.headBytes = null;
        o.writeLatin1(this.chunked ? head + LAST_CHUNK : head);
      } else {
        const out = o.scratch(head.length + lines.length + 2 + (this.chunked ? LAST_CHUNK.length : 0));
        const at = this.putHead(out, head, lines);
        if (this.chunked) out.write(LAST_CHUNK, at, 'latin1');
        o.write(out);
      }
      this.headWritten = true;
    } else if (this.chunked) {
      o.writeLatin1(LAST_CHUNK);
    }
    this.ended = true;
    c.exchangeEnded(this);
  }

  /** Cuts the connection (the response cannot be completed honestly). */
  abort(): void {
    this.conn.destroy();
  }

  /** The client can take more (its socket is below the high-water mark). */
  get writable(): boolean { return !this.conn.out.needsDrain; }
}
