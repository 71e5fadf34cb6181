import type net from 'node:net';
import { HTTPParser, METHODS, STOP_AT_HEAD, kOnBody, kOnHeaders, kOnHeadersComplete, kOnMessageBegin, kOnMessageComplete, type LlhttpParser } from '../sender/http-parser.js';
import type { DoorConfig } from '../../conf/views/front-door.js';
import { checkHead } from './framing.js';
import { RequestHead } from './request-head.js';
import { DoorRefusal, Refusal, refusalOfParseError } from './refusals.js';
import type { DoorHandler } from './door-handler.js';
import { ReadHead, type KeptRead } from './kept-read.js';
import { ClientExchange, type ExchangeConnection } from './client-exchange.js';
import { socketOut, type SocketOut } from '../direct-write.js';
import { turnNow } from '../event-turn.js';
import { viewsOf, type ReadViews } from '../read-views.js';
import { LINGER_IDLE_MS, LINGER_MAX_MS, Reading } from './connection-state.js';

/**
 * One client connection of the gateway: Node's llhttp reads requests from it strictly, the front door's
 * rules judge each head (framing.ts), and the exchanges are answered one at a time, in order. Requests a
 * client pipelines are parsed ahead (bounded) and wait their turn with their bodies.
 */
export class ClientConnection implements ExchangeConnection {
  private readonly parser: LlhttpParser = new HTTPParser();
  /** [0] is the exchange being answered; the rest were parsed ahead and wait. */
  private readonly queue: ClientExchange[] = [];
  /** The exchange whose body the parser is reading; null between messages. */
  private parsing: ClientExchange | null = null;
  private reading: Reading = Reading.IDLE;
  /** The parser calls onMessageComplete: only while the message being read has a body. */
  private completeHooked = false;
  /** The first message has begun: from then on the parser's message clock is set (`inHead`). */
  private begun = false;
  private headerParts: string[] | null = null;
  private urlPart = '';
  /** A WebSocket upgrade's head was just parsed: the parse stops there, after `upgradeEnd` bytes. */
  private upgradeAt: ClientExchange | null = null;
  private upgradeEnd = 0;
  /** Bytes that came after an upgrade request's head (the first WebSocket frames). */
  upgradeRest: Buffer | null = null;
  /** The socket was handed over (WebSocket): the door no longer reads or writes it. */
  upgraded = false;
  closed = false;
  /** The gateway is stopping: the current exchange is the last one. */
  draining = false;
  private clientEnded = false;
  private lingering = false;
  private lingerSince = 0;
  private pausedBy: ClientExchange | null = null;
  private views: ReadViews | null = null; // of the buffer the socket's reads arrive in (read-views.ts)
  /** The parser is known to stand between messages: since the open, or after a read kept or replayed (kept-read.ts). */
  private clean = true;
  /** The last head kept the connection alive and asked no upgrade: llhttp takes a next message after it. */
  private reusable = true;
  private readHead = new ReadHead();
  private pausedForQueue = false;
  queuedBytes = 0;
  // ---- timeouts (checked by the front door's sweeper) ----
  private headStartedAt: number;
  private lastReadAt: number;
  private idleSince = 0;
  private drainWaitSince = 0;
  /** Set by the front door: the connection left the set of open connections. */
  onClosed: ((c: ClientConnection) => void) | null = null;
  readonly out: SocketOut;

  constructor(
    readonly socket: net.Socket, readonly secure: boolean, readonly remoteAddress: string,
    private readonly cfg: DoorConfig, private readonly handler: DoorHandler, private readonly kept: KeptRead,
  ) {
    const p = this.parser;
    // The limit llhttp applies counts the request line too: the target's own limit is checked after.
    p.initialize(HTTPParser.REQUEST, {}, cfg.maxTargetBytes + cfg.maxHeaderBytes, 0);
    // Only the connection's first message-begin calls back: it sets the parser's own clock of the current
    // message, which `inHead` reads from then on (llhttp leaves it unset before). A callback per message
    // costs a crossing from C++ into JavaScript on every call (docs/performance.md).
    p[kOnMessageBegin] = this.onFirstMessageBegin;
    p[kOnHeaders] = this.onHeaders;
    p[kOnHeadersComplete] = this.onHeadersComplete;
    p[kOnBody] = this.onBody;
    this.headStartedAt = this.lastReadAt = Date.now();
    socket.on('error', this.onSocketError);
    socket.on('close', this.onSocketClose);
    socket.on('end', this.onSocketEnd);
    socket.on('drain', this.onSocketDrain);
    // Timed by the front door's sweeper (checkTimeouts), never by a socket timeout.
    this.out = socketOut(socket, !secure, this.onSocketDrain, false);
  }

  /** The socket's `onread` callback (plain connections) or its `data` listener (TLS). */
  readonly onRead = (n: number, buf: Buffer): boolean => {
    if (this.upgraded) {
      // A WebSocket library reads the socket now; it listens for `data`.
      this.socket.emit('data', Buffer.from(buf.subarray(0, n)));
      return true;
    }
    if (this.closed) return false;
    this.lastReadAt = turnNow();
    if (this.reading === Reading.STOPPED) return true; // lingering, or after a refusal: dropped
    const chunk = n === buf.length ? buf : (this.views?.buffer === buf ? this.views : (this.views = viewsOf(buf))).of(0, n);
    // A read that repeats the kept one while the parser stands between messages: the head llhttp would give.
    const head = this.reading === Reading.IDLE && this.kept.repeats(chunk, n) && (this.clean || (this.reusable && this.parser.duration() === 0))
      ? this.kept.replay(this.cfg) : null;
    if (head !== null) this.replay(head, chunk, n); else if (!this.parse(chunk, n)) return true;
    const up = this.upgradeAt;
    if (up !== null) {
      this.upgradeAt = null;
      this.reading = Reading.STOPPED;
      up.bodyComplete = true;
      if (this.upgradeEnd < n) this.upgradeRest = Buffer.from(chunk.subarray(this.upgradeEnd));
      if (this.queue[0] === up) this.handler.onUpgrade(up);
      return true;
    }
    if (this.queue.length > this.cfg.maxPipelined || this.queuedBytes > this.cfg.maxQueuedBytes) {
      this.pausedForQueue = true;
      this.socket.pause();
    }
    return true;
  };

  readonly onData = (d: Buffer): void => { this.onRead(d.length, d); };

  /**
   * A read that repeats the kept one, as llhttp would have given it: the head, then (when it has a body)
   * one piece of the body's bytes, a copy of its own as Node's parser makes, and the message's end.
   */
  private replay(head: RequestHead, chunk: Buffer, n: number): void {
    this.clean = true;
    this.admitHead(head, null, false, true);
    const body = this.kept.bodyOf(chunk, n);
    if (body !== null) { this.onBody(body); this.onMessageComplete(); }
  }

  /** Hands a read to llhttp (false: a parse error); keeps it when it may be replayed (kept-read.ts says when). */
  private parse(chunk: Buffer, n: number): boolean {
    const wasClean = this.clean && this.reading === Reading.IDLE;
    this.clean = false;
    const h = this.readHead;
    h.begin();
    const r = this.parser.execute(chunk);
    if (r instanceof Error) { this.onParseError(r); return false; }
    this.upgradeEnd = r;
    // Ended between messages: llhttp took the whole read, the door reads on, and no next message began.
    if (wasClean && r === n && !this.closed && this.reading === Reading.IDLE && this.parser.duration() === 0 && this.kept.offer(chunk, n, h)) {
      this.readHead = new ReadHead(); // the kept read holds that one now
      this.clean = true;
    }
    return true;
  }

  // ---- llhttp ----------------------------------------------------------------------------------------

  private readonly onFirstMessageBegin = (): number => {
    this.parser[kOnMessageBegin] = undefined;
    this.begun = true;
    this.reading = Reading.HEAD;
    this.headStartedAt = turnNow();
    return 0;
  };

  /**
   * Whether a request head is being read: the first one by the door's own state, a later one by the
   * parser's (its message clock runs from a message's first byte and is 0 once the message is complete;
   * a head ends in BODY, STOPPED, or a message complete at once).
   */
  private inHead(): boolean {
    if (this.reading === Reading.HEAD) return true;
    return this.reading === Reading.IDLE && this.begun && this.parser.duration() !== 0 && !this.parser.headersCompleted();
  }

  /** Milliseconds inside the current head (`inHead`). */
  private headMs(now: number): number {
    return this.reading === Reading.HEAD ? now - this.headStartedAt : this.parser.duration();
  }

  /** More than 32 fields, or a head split across reads: llhttp hands the fields over in parts. */
  private readonly onHeaders = (headers: string[], url: string): void => {
    if (this.reading !== Reading.HEAD && this.reading !== Reading.IDLE) return; // trailers of a chunked body: not forwarded
    if (this.headerParts === null) this.headerParts = headers.slice();
    else for (let i = 0; i < headers.length; i++) this.headerParts.push(headers[i]!);
    this.urlPart += url;
  };

  private readonly onHeadersComplete = (major: number, minor: number, headers: string[] | undefined, method: number, url: string | undefined,
    _status: number, _text: string, upgrade: boolean, keepAlive: boolean): number => {
    let raw = headers;
    let target = url;
    if (this.headerParts !== null) {
      raw = headers === undefined ? this.headerParts : this.headerParts.concat(headers);
      target = this.urlPart + (url ?? '');
      this.headerParts = null;
      this.urlPart = '';
    }
    const head = new RequestHead();
    const refusal = checkHead(this.cfg, head, major, minor, raw ?? [], METHODS[method] ?? '', target ?? '', upgrade);
    this.readHead.note(raw === headers && refusal === null && keepAlive && !upgrade && !head.chunked, head.contentLength, major, minor, raw, method, target);
    return this.admitHead(head, refusal, upgrade, keepAlive);
  };

  /** The connection's next exchange, from a head the door judged (`refusal` null: it passed). */
  private admitHead(head: RequestHead, refusal: DoorRefusal | null, upgrade: boolean, keepAlive: boolean): number {
    head.keepAlive = keepAlive && !this.draining;
    this.reusable = keepAlive && !upgrade;
    const x = new ClientExchange(this, head);
    this.queue.push(x);
    if (refusal !== null) {
      this.reading = Reading.STOPPED;
      x.pendingError = refusal;
      if (this.queue[0] === x) this.activate(x);
      return STOP_AT_HEAD;
    }
    if (head.websocket) {
      this.upgradeAt = x;
      return STOP_AT_HEAD;
    }
    if (upgrade) head.keepAlive = false; // an Upgrade the gateway ignores: llhttp reads no further request
    if (head.hasBody) {
      this.reading = Reading.BODY;
      this.parsing = x;
      this.hookComplete(true);
    } else {
      // llhttp completes a message without a body right after its head, in this same execute: nothing is
      // left for its callback to do.
      this.reading = Reading.IDLE;
      this.headStartedAt = 0;
      x.bodyComplete = true;
      this.hookComplete(false);
    }
    if (this.queue[0] === x) this.activate(x);
    return 0;
  }

  private hookComplete(on: boolean): void {
    if (this.completeHooked === on) return;
    this.completeHooked = on;
    this.parser[kOnMessageComplete] = on ? this.onMessageComplete : undefined;
  }

  private readonly onBody = (chunk: Buffer): void => {
    this.readHead.body += chunk.length;
    this.parsing?.deliverBody(chunk, false);
  };

  /** The end of a request body (hooked only while one is read: onHeadersComplete). */
  private readonly onMessageComplete = (): void => {
    const x = this.parsing;
    // A refused or upgraded head also completes its message (STOP_AT_HEAD): the door reads no further.
    if (this.reading === Reading.STOPPED || x === null) return;
    this.parsing = null;
    this.reading = Reading.IDLE;
    this.headStartedAt = 0;
    x.deliverBody(null, true);
  };

  private onParseError(err: Error): void {
    const refusal = refusalOfParseError(err, this.cfg);
    if (this.parsing !== null) this.refuseBody(refusal); // the body of an accepted head broke the framing
    else { this.reading = Reading.STOPPED; this.refuseWithoutHead(refusal); }
  }

  /** The body being read cannot complete: its exchange answers `refusal`, or it waits its turn; the door reads no more. */
  private refuseBody(refusal: DoorRefusal): void {
    const x = this.parsing!;
    this.parsing = null;
    this.reading = Reading.STOPPED;
    if (x.handler !== null) x.handler.onRequestError(refusal); else x.pendingError = refusal;
  }

  /** A refusal before any head was accepted: an exchange of its own answers it in its turn, then the close. */
  private refuseWithoutHead(refusal: DoorRefusal): void {
    const head = new RequestHead();
    head.keepAlive = false;
    const y = new ClientExchange(this, head);
    y.bodyComplete = true;
    y.pendingError = refusal;
    this.queue.push(y);
    if (this.queue[0] === y) this.activate(y);
  }

  // ---- exchanges -------------------------------------------------------------------------------------

  private activate(x: ClientExchange): void {
    if (x.pendingError !== null && x.handler === null) {
      const e = x.pendingError;
      // Answered at the door: the head was refused, or its body broke before its turn came.
      this.handler.onRefused(x, e);
      return;
    }
    if (x.head.websocket) {
      if (this.upgradeAt === null) this.handler.onUpgrade(x);
      return;
    }
    this.handler.onRequest(x);
  }

  /** The active exchange's response ended: the next one's turn, or the close. */
  exchangeEnded(x: ClientExchange): void {
    const q = this.queue;
    if (q[0] !== x) throw new Error('front door: an exchange ended out of turn');
    q.shift();
    if (this.pausedBy === x) this.pausedBy = null;
    if (this.closed) return;
    if (x.closeAfter || this.draining || (this.clientEnded && q.length === 0 && !this.inHead())) {
      this.closeAfterResponse(!x.bodyComplete);
      return;
    }
    if (this.pausedForQueue && q.length <= this.cfg.maxPipelined) { this.pausedForQueue = false; this.resumeIfFree(); }
    if (q.length > 0) { this.activate(q[0]!); return; }
    this.idleSince = turnNow();
    if (this.clientEnded && this.inHead()) this.refuseTruncatedHead();
  }

  /** Stop reading for the exchange whose body is being read (the backend pushes back). */
  pauseReading(x: ClientExchange): void {
    if (this.parsing !== x || this.closed) return;
    this.pausedBy = x;
    this.socket.pause();
  }

  resumeReading(x: ClientExchange): void {
    if (this.pausedBy !== x) return;
    this.pausedBy = null;
    this.resumeIfFree();
  }

  private resumeIfFree(): void {
    if (this.pausedBy === null && !this.pausedForQueue && !this.closed) this.socket.resume();
  }

  /**
   * The response is out and the connection ends. When the client may still be sending the request's body,
   * its bytes are read and dropped for a while first: closing with unread bytes makes the kernel reset the
   * connection, and the client could lose the response it is reading.
   */
  private closeAfterResponse(unread: boolean): void {
    this.reading = Reading.STOPPED;
    this.out.flush();
    this.socket.end();
    if (unread && !this.clientEnded) {
      this.lingering = true;
      this.lingerSince = this.lastReadAt = Date.now();
      this.pausedBy = null;
      this.pausedForQueue = false;
      this.socket.resume();
    }
  }

  /** The client closed its side in the middle of a head: it gets an answer, never a silent close. */
  private refuseTruncatedHead(): void {
    this.reading = Reading.STOPPED;
    this.refuseWithoutHead(new DoorRefusal(Refusal.BAD_REQUEST, 'The connection ended inside a request head'));
  }

  /** The gateway is stopping: idle connections close now, busy ones after their current response. */
  drain(): void {
    this.draining = true;
    if (this.queue.length === 0 && !this.inHead()) this.destroy();
  }

  /** Hands the socket over (a WebSocket session): the door stops reading and timing it. */
  upgrade(): net.Socket {
    this.upgraded = true;
    this.out.flush(); // the WebSocket library writes to the socket itself from now on
    // TLS sockets were read through `data`: the WebSocket library listens there itself now.
    if (this.secure) this.socket.removeListener('data', this.onData);
    this.queue.length = 0;
    this.onClosed?.(this);
    return this.socket;
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.reading = Reading.STOPPED;
    this.out.flush(); // what this turn wrote goes first (an answer, then the close)
    this.socket.destroy();
    this.afterClose();
  }

  private afterClose(): void {
    const active = this.queue[0];
    this.queue.length = 0;
    this.parsing = null;
    this.parser.free();
    if (!this.upgraded) this.onClosed?.(this);
    if (active !== undefined && !active.ended) active.handler?.onClientGone();
  }

  private readonly onSocketError = (): void => { this.destroy(); };

  private readonly onSocketClose = (): void => {
    if (this.upgraded) return;
    if (this.closed) return;
    this.closed = true;
    this.afterClose();
  };

  /**
   * The client sent FIN. Inside a head: it gets its 400, never a silent close. Inside a request body: the body
   * can never complete, 102511 (Incomplete payload). Waiting for an answer: the client is gone (as nginx
   * reads a FIN then, its 499), the call is canceled and the backend exchange released.
   */
  private readonly onSocketEnd = (): void => {
    if (this.upgraded) return;
    this.clientEnded = true;
    if (this.lingering) { this.destroy(); return; }
    if (this.queue.length === 0) {
      if (this.inHead()) this.refuseTruncatedHead(); else this.destroy();
      return;
    }
    if (this.parsing === null || this.parsing.bodyComplete) { this.destroy(); return; }
    this.refuseBody(new DoorRefusal(Refusal.INCOMPLETE_PAYLOAD, 'The client closed its side of the connection before the request body was complete'));
  };

  private readonly onSocketDrain = (): void => {
    this.drainWaitSince = 0;
    const x = this.queue[0];
    if (x !== undefined && !x.ended) x.handler?.onWritable();
  };

  /** A write returned false: the send timeout runs until the socket drains. */
  noteBackPressure(): void {
    if (this.drainWaitSince === 0) this.drainWaitSince = Date.now();
  }

  /** Called about once a second by the front door. */
  checkTimeouts(now: number): void {
    if (this.closed || this.upgraded) return;
    const t = this.cfg.timeouts;
    if (this.drainWaitSince !== 0 && now - this.drainWaitSince > t.sendMs) { this.destroy(); return; }
    if (this.lingering) {
      if (now - this.lastReadAt > LINGER_IDLE_MS || now - this.lingerSince > LINGER_MAX_MS) this.destroy();
      return;
    }
    const active = this.queue[0];
    const inHead = this.inHead();
    if (inHead || (this.reading === Reading.IDLE && this.idleSince === 0 && active === undefined)) {
      // Before the first byte of a fresh connection, the clock runs from its accept (the constructor).
      if (active === undefined && (inHead ? this.headMs(now) : now - this.headStartedAt) > t.headerMs) {
        // A head that never completes (slowloris) gets its answer, then the close.
        this.reading = Reading.STOPPED;
        this.refuseWithoutHead(new DoorRefusal(Refusal.HEAD_TIMEOUT, 'The request head did not arrive in time'));
      }
      return;
    }
    if (this.reading === Reading.BODY && this.pausedBy === null && !this.pausedForQueue && now - this.lastReadAt > t.bodyMs) {
      this.refuseBody(new DoorRefusal(Refusal.HEAD_TIMEOUT, 'The request body did not arrive in time'));
      return;
    }
    if (active === undefined && this.idleSince !== 0 && now - this.idleSince > t.keepAliveMs) this.destroy();
  }
}
