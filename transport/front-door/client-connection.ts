import type net from 'node:net';
import { STOP_AT_HEAD } from '../sender/http-parser.js';
import type { DoorConfig } from '../../conf/views/front-door.js';
import { RequestHead } from './request-head.js';
import { DoorRefusal, Refusal, refusalOfParseError } from './refusals.js';
import type { DoorHandler } from './door-handler.js';
import type { KeptRead } from './kept-read.js';
import { RequestReader } from './request-reader.js';
import { ClientExchange, type ExchangeConnection } from './client-exchange.js';
import { socketOut, type SocketOut } from '../direct-write.js';
import { turnNow } from '../event-turn.js';
import { viewsOf, type ReadViews } from '../read-views.js';
import { LINGER_IDLE_MS, LINGER_MAX_MS, Reading } from './connection-state.js';

/**
 * One client connection of the gateway: Node's llhttp reads requests from it strictly (request-reader.ts,
 * the reading half), the front door's rules judge each head (framing.ts), and the exchanges are answered one
 * at a time, in order. Requests a client pipelines are parsed ahead (bounded) and wait their turn with their
 * bodies.
 */
export class ClientConnection extends RequestReader implements ExchangeConnection {
  /** [0] is the exchange being answered; the rest were parsed ahead and wait. */
  private readonly queue: ClientExchange[] = [];
  /** A WebSocket upgrade's head was just parsed: the parse stops there, after `upgradeEnd` bytes. */
  private upgradeAt: ClientExchange | null = null;
  /** Bytes that came after an upgrade request's head (the first WebSocket frames). */
  upgradeRest: Buffer | null = null;
  /** The socket was handed over (WebSocket): the door no longer reads or writes it. */
  upgraded = false;
  /** The gateway is stopping: the current exchange is the last one. */
  draining = false;
  private clientEnded = false;
  private lingering = false;
  private lingerSince = 0;
  private pausedBy: ClientExchange | null = null;
  private views: ReadViews | null = null; // of the buffer the socket's reads arrive in (read-views.ts)
  private pausedForQueue = false;
  queuedBytes = 0;
  // ---- timeouts (checked by the front door's sweeper) ----
  private lastReadAt: number;
  private idleSince = 0;
  private drainWaitSince = 0;
  /** Set by the front door: the connection left the set of open connections. */
  onClosed: ((c: ClientConnection) => void) | null = null;
  readonly out: SocketOut;

  constructor(
    readonly socket: net.Socket, readonly secure: boolean, readonly remoteAddress: string,
    cfg: DoorConfig, private readonly handler: DoorHandler, kept: KeptRead,
  ) {
    super(cfg, kept);
    this.lastReadAt = this.headStartedAt;
    socket.on('error', this.onSocketError);
    socket.on('close', this.onSocketClose);
    socket.on('end', this.onSocketEnd);
    socket.on('drain', this.onSocketDrain);
    // Timed by the front door's sweeper (checkTimeouts), never by a socket timeout.
    this.out = socketOut(socket, !secure, this.onSocketDrain);
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
    const head = this.reading === Reading.IDLE && this.kept.repeats(chunk, n, chunk === buf ? null : this.views!.words) && (this.clean || (this.reusable && this.parser.duration() === 0))
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

  /** The connection's next exchange, from a head the door judged (`refusal` null: it passed). */
  protected admitHead(head: RequestHead, refusal: DoorRefusal | null, upgrade: boolean, keepAlive: boolean): number {
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
    let stop = 0;
    if (head.hasBody) {
      this.reading = Reading.BODY;
      this.parsing = x;
      // A Content-Length body on a connection that goes on is read past llhttp (readBody), after a stop here.
      const past = !head.chunked && keepAlive && !upgrade;
      if (past) { this.bodyLeft = head.contentLength; stop = STOP_AT_HEAD; }
      this.hookComplete(!past);
    } else {
      // llhttp completes a message without a body right after its head, in this same execute: nothing is
      // left for its callback to do.
      this.reading = Reading.IDLE;
      this.headStartedAt = 0;
      x.bodyComplete = true;
      this.hookComplete(false);
    }
    if (this.queue[0] === x) this.activate(x);
    return stop;
  }

  protected onParseError(err: Error): void {
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
