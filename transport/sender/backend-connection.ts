import net from 'node:net';
import tls from 'node:tls';
import { ProtocolState } from '../protocol-state.js';
import { BackendTransportError, TransportErrorCode, baseForSocketError } from '../transport-errors.js';
import { isResponding } from './exchange-state.js';
import { BodyMode } from './sender-handler.js';
import {
  HTTPParser, SKIP_BODY, STOP_AT_HEAD, plainBodyLength, kOnBody, kOnHeaders, kOnHeadersComplete, kOnMessageBegin, kOnMessageComplete, type LlhttpParser,
} from './http-parser.js';
import type { Exchange, ExchangeWire } from './exchange.js';
import type { HostPoolOptions } from './pool-options.js';
import { unreportedParseError } from './unreported-parse-error.js';
import { socketOut } from '../direct-write.js';
import { RequestWriter } from './request-writer.js';
import { viewsOf, type ReadViews } from '../read-views.js';
import { keptResponse } from './kept-response.js';
import { idleWatch, type IdleWatched } from './idle-watch.js';
import { turnNow } from '../event-turn.js';
import { Tunnel, type TunnelOwner } from './connect-tunnel.js';
import { ReadHeads } from './read-heads.js';

/** What a connection needs of its pool (HostPool). */
export interface ConnectionPool {
  readonly options: HostPoolOptions;
  /** Connected: it takes a waiting exchange or goes idle. */
  onConnectionReady(conn: BackendConnection): void;
  /** Its exchange is over and it may be reused. */
  release(conn: BackendConnection): void;
  onConnectFailed(conn: BackendConnection, err: BackendTransportError): void;
  onConnectionClosed(conn: BackendConnection): void;
}

/**
 * One HTTP/1.1 connection to a backend: one exchange at a time (no pipelining), responses parsed by llhttp,
 * back to its pool's idle list when request and response are complete and both sides keep it alive. Where the
 * exchange stands is its protocol state, read from the exchange rather than kept here a second time.
 */
export class BackendConnection implements ExchangeWire, IdleWatched, TunnelOwner {
  readonly socket: net.Socket;
  /** `http.socket.timeout`: the idle watch (idle-watch.ts) times the connection out after this long without a read or a write; 0 or less: never. */
  readonly idleLimitMs: number;
  /** When the connection last read, wrote or drained (ms since the epoch, the turn's clock). */
  private activeAt = 0;
  /** The request side: head and body (request-writer.ts). */
  private readonly writer: RequestWriter;
  private readonly parser: LlhttpParser;
  exchange: Exchange | null = null;
  connected = false;
  /** Carried an exchange before this one, and none of this one's reply came: a close now may be a stale one. */
  private staleIfClosed = false;
  private closed = false;
  private keepAlive = false;
  private skipBody = false;
  private informational = false;
  private connectTimer: NodeJS.Timeout | null = null;
  /**
   * Bytes of a Content-Length body still to come, read from the socket's read buffer past the parser (llhttp
   * would copy each piece); -1 while the parser reads (heads, chunked and close-delimited bodies).
   */
  private bodyLeft = -1;
  /** Views of the read buffer this connection's reads arrive in (read-views.ts). */
  private views: ReadViews | null = null;
  /** `execute` is reading a view of `views.buffer` from its start (onRead). */
  private viewsOfRead = false;
  /** llhttp stands at a response's first byte: since the connect, or a stop at a head (STOP_AT_HEAD) whose body is read past it. */
  private parserAtStart = true;
  /** The heads llhttp completed during the current parse (read-heads.ts). */
  private readonly heads = new ReadHeads();
  /** llhttp is reading (`execute`): an exchange that ends there goes back to the pool only once the read is over. */
  private parsing = false;
  private releaseAfterRead = false;
  /** A message began after the exchange ended, in the read that ended it: bytes no request asked for. */
  private strayBytes = false;

  constructor(readonly pool: ConnectionPool, readBuffer: Buffer) {
    const o = pool.options;
    this.idleLimitMs = o.socketTimeoutMs;
    this.parser = new HTTPParser();
    this.parser.initialize(HTTPParser.RESPONSE, {}, o.maxHeaderSize, 0);
    // Node's binding looks every callback up on each message; an own `undefined` ends the lookup at the
    // parser, where an absent one walks its prototypes first (about 180 instructions a response).
    this.parser[kOnMessageBegin] = undefined;
    this.parser[kOnHeaders] = this.onParserHeaders;
    this.parser[kOnHeadersComplete] = this.onParserHeadersComplete;
    this.parser[kOnBody] = this.onParserBody;
    this.parser[kOnMessageComplete] = this.onParserMessageComplete;
    const onread = { buffer: readBuffer, callback: this.onRead };
    const target = o.proxy ?? { host: o.host, port: o.port };
    if (o.tls && !o.proxy) {
      // node:tls takes `onread` as net does (documented for tls.connect), the typings lag behind.
      this.socket = tls.connect({ ...o.tls, host: o.host, port: o.port, onread } as tls.ConnectionOptions);
      this.socket.once('secureConnect', this.onConnected);
    } else {
      this.socket = net.connect({ host: target.host, port: target.port, onread, noDelay: true });
      if (o.tls) this.tunnel = new Tunnel(this.socket, o, this);
      this.socket.once('connect', this.tunnel ? this.onTunnelSocket : this.onConnected);
    }
    this.socket.setNoDelay(true);
    // Plain TCP to the backend (no TLS, no tunnel): the request goes straight to the socket's handle.
    this.writer = new RequestWriter(this.socket, o.tls ? null : socketOut(this.socket, true, this.onSocketDrain));
    this.socket.on('error', this.onSocketError);
    this.socket.on('close', this.onSocketClose);
    this.socket.on('drain', this.onSocketDrain);
    this.connectTimer = setTimeout(this.onConnectTimeout, o.connectTimeoutMs);
  }

  // ---- connection set-up ----------------------------------------------------------------------------

  private readonly onConnected = (): void => {
    if (this.connectTimer) { clearTimeout(this.connectTimer); this.connectTimer = null; }
    this.connected = true;
    if (this.idleLimitMs > 0 && !this.closed) {
      this.activeAt = turnNow();
      idleWatch.watch(this);
    }
    this.pool.onConnectionReady(this);
  };

  /** HTTPS through a forward proxy (connect-tunnel.ts): CONNECT, then TLS over the tunnel (no onread buffer for TLS here). */
  private tunnel: Tunnel | null = null;
  private readonly onTunnelSocket = (): void => { this.tunnel!.start(); };

  onTunnelOpen(secure: tls.TLSSocket): void {
    this.socket.removeListener('drain', this.onSocketDrain);
    this.writer.out = secure;
    secure.on('data', (d: Buffer) => { this.onRead(d.length, d); });
    secure.on('error', this.onSocketError);
    secure.on('drain', this.onSocketDrain);
    secure.once('secureConnect', this.onConnected);
  }

  onTunnelRefused(reason: string): void { this.fail(TransportErrorCode.CONNECTION_FAILED, reason); }

  private get out(): net.Socket {
    return this.tunnel?.secure ?? this.socket;
  }

  // ---- exchanges --------------------------------------------------------------------------------------

  /** Starts an exchange on this (connected, idle) connection. */
  assign(ex: Exchange): void {
    this.exchange = ex;
    // The request starts the wait for its answer afresh, however long the connection sat idle.
    this.activeAt = turnNow();
    this.keepAlive = false;
    this.skipBody = ex.req.isHead;
    ex.attach(this);
  }

  writeHead(head: string, bodyFollows: boolean): boolean { return this.writer.writeHead(head, bodyFollows); }
  writeBody(chunk: Buffer, mode: BodyMode): boolean {
    this.activeAt = turnNow();
    return this.writer.writeBody(chunk, mode);
  }
  /** The request's end. A response that completed first has already detached the exchange: none is left to finish. */
  endBody(mode: BodyMode): void {
    this.activeAt = turnNow();
    this.writer.endBody(mode);
  }

  pauseReading(): void { this.out.pause(); }
  resumeReading(): void { this.out.resume(); }

  /** The owner gave up on the exchange (client gone): the connection cannot be trusted for reuse. */
  abandon(): void {
    this.exchange = null;
    this.destroy();
  }

  // ---- reading ----------------------------------------------------------------------------------------

  private readonly onRead = (n: number, buf: Buffer): boolean => {
    this.activeAt = turnNow();
    if (this.tunnel?.replying) { this.tunnel.read(Buffer.from(buf.subarray(0, n))); return true; }
    if (this.closed) return false;
    if (this.exchange === null) {
      // Bytes from a backend with no request outstanding: it is not speaking HTTP correctly.
      this.destroy();
      return false;
    }
    this.staleIfClosed = false; // the backend began its reply: it took the request
    // Reads into the shared buffer are cut through its views (read-views.ts); TLS over a tunnel hands over
    // buffers of its own, whole.
    const shared = n !== buf.length;
    if (shared && this.views?.buffer !== buf) this.views = viewsOf(buf);
    this.viewsOfRead = shared;
    const data = shared ? this.views!.of(0, n) : buf;
    let r: number | Error;
    try {
      r = this.parserAtStart && this.bodyLeft < 0 && !this.skipBody && keptResponse.repeats(data, n, shared ? this.views!.words : null) ? this.replay(data) : this.execute(data);
    } finally { this.viewsOfRead = false; }
    if (this.releaseAfterRead) this.readEnded(typeof r !== 'number');
    if (typeof r !== 'number') {
      const code = (r as Error & { code?: string }).code ?? 'HPE_ERROR';
      this.fail(TransportErrorCode.NHTTP_PROTOCOL_VIOLATION, `invalid response from the backend: ${code}`);
      return false;
    }
    return this.exchange === null || !this.exchange.readPaused;
  };

  /**
   * One read: the parser up to the end of a head, the body of a Content-Length response past it. Returns an
   * Error when the backend broke the protocol.
   */
  execute(data: Buffer): number | Error {
    const atStart = this.parserAtStart;
    let at = 0;
    if (this.bodyLeft > 0) {
      at = this.readBody(data, 0);
      if (at === data.length || this.exchange === null) return at;
    }
    const fromStart = at === 0 && atStart;
    this.heads.begin();
    const input = at === 0 ? data : this.slice(data, at, data.length);
    const r = this.parse(input);
    // r: the bytes up to the end of the head when the parser stopped there (STOP_AT_HEAD). Node resumes it
    // after such a stop, so it reads the next response from its start (test/transport/response-framing).
    this.parserAtStart = typeof r === 'number' && this.bodyLeft > 0;
    if (typeof r !== 'number') return r;
    if (this.bodyLeft < 0) {
      // A response begun here, no head of it complete: after a stop Node's binding may hide llhttp's error, even
      // at the input's end (unreported-parse-error.ts). A parser made new reads it again, and reports one.
      if (atStart && this.heads.count === 0 && !this.closed) return this.parseAfresh(input);
      return r === input.length || this.closed ? r : unreportedParseError(HTTPParser.RESPONSE, this.pool.options.maxHeaderSize, input, r);
    }
    // One whole head from the read's first byte, and its body ends the read: kept (kept-response.ts).
    const h = this.heads;
    if (fromStart && h.count === 1 && h.firstWhole && r + this.bodyLeft === data.length) {
      keptResponse.keep(data, data.length, r, h.firstStatus, h.firstStatusText, h.firstFields, this.keepAlive);
    }
    at += r;
    return at < data.length && this.exchange !== null ? this.readBody(data, at) : at;
  }

  /**
   * A read that repeats the kept response, as llhttp would have given it: the head callback with the kept
   * arguments, which stops at the head as the kept one did, and the body read past the parser.
   */
  private replay(data: Buffer): number {
    const k = keptResponse;
    const r = this.onParserHeadersComplete(1, 1, k.fields(), 0, 0, k.status, k.statusText, false, k.keepAlive);
    // Not stopped: the exchange left during the head; llhttp would have read the body for nobody.
    if (r !== STOP_AT_HEAD) return data.length;
    return this.readBody(data, k.headLength);
  }

  /** `input` again, from a response's start, on the parser made new (its upgrade flag gone); no head of it completed. */
  private parseAfresh(input: Buffer): number | Error {
    this.parser.initialize(HTTPParser.RESPONSE, {}, this.pool.options.maxHeaderSize, 0);
    this.heads.dropParts();
    return this.parse(input);
  }

  private parse(input: Buffer): number | Error {
    this.parsing = true;
    try { return this.parser.execute(input); } finally { this.parsing = false; }
  }

  /** `data[start, end)`: from the shared buffer's views while `data` is its read from the start. */
  private slice(data: Buffer, start: number, end: number): Buffer {
    return this.viewsOfRead ? this.views!.of(start, end) : data.subarray(start, end);
  }

  /** Body bytes from `at` (a view of the read buffer, valid during the call: SenderHandler.onData). */
  private readBody(data: Buffer, at: number): number {
    const avail = data.length - at;
    const left = this.bodyLeft;
    const n = avail < left ? avail : left;
    this.bodyLeft = left - n;
    const ex = this.exchange!;
    // Bytes past the end of the response, with no request outstanding: the backend is not speaking HTTP
    // correctly, so the connection is not reused.
    if (this.bodyLeft === 0 && avail > n) this.keepAlive = false;
    ex.onResponseData(n === data.length ? data : this.slice(data, at, at + n));
    if (this.bodyLeft === 0) {
      this.bodyLeft = -1;
      this.parser[kOnMessageComplete] = this.onParserMessageComplete;
      if (this.exchange === ex) this.responseDone(ex);
    }
    return at + n;
  }

  private readonly onParserHeaders = (headers: string[]): void => { this.heads.addParts(headers); };

  private readonly onParserHeadersComplete = (
    _major: number, _minor: number, headers: string[] | undefined, _method: unknown, _url: unknown,
    status: number, statusText: string, _upgrade: boolean, keepAlive: boolean,
  ): number => {
    const all = this.heads.complete(headers, status, statusText);
    if (status === 101 || status < 100) {
      // No request here asks to switch (Upgrade is dropped: header-rules.ts; WebSocket APIs have their own relay):
      // a 101 is refused (RFC 9110 §7.8) lest the client talk past the gateway (h2c smuggling). Under 100 is no
      // status (RFC 9110 §15), and would reach the client as a status line of fewer than three digits.
      this.fail(TransportErrorCode.NHTTP_PROTOCOL_VIOLATION, `invalid response from the backend: ${status === 101 ? 'a 101 Switching Protocols no request asked for' : `status ${status}`}`);
      return 0;
    }
    if (status < 200) {
      // 100 Continue and friends: the real response follows on the same connection.
      this.informational = true;
      return 0;
    }
    this.keepAlive = keepAlive;
    const length = this.skipBody || status === 204 || status === 304 ? -1 : plainBodyLength(all);
    const ex = this.exchange;
    if (ex) ex.onResponseHead(status, statusText, all, keepAlive, length);
    if (this.skipBody) return SKIP_BODY;
    if (ex === null || this.exchange !== ex || length <= 0) return 0;
    this.bodyLeft = length;
    // llhttp reports the message complete right after such a stop, through a callback from C++ (about 1 600
    // instructions for nothing: the body is still to come). Without a function there, Node skips the call;
    // the callback is back before the next response is parsed (readBody, at the body's end).
    this.parser[kOnMessageComplete] = undefined;
    return STOP_AT_HEAD;
  };

  private readonly onParserBody = (chunk: Buffer): void => { this.exchange?.onResponseData(chunk); };

  private readonly onParserMessageComplete = (): void => {
    if (this.informational) { this.informational = false; return; }
    // After STOP_AT_HEAD llhttp reports the message complete at once; the body is still to come.
    if (this.bodyLeft > 0) return;
    // A trailer field of the connection's or the framing's (forbidden there) may make llhttp end it: so do we.
    if (this.heads.endTrailers()) this.keepAlive = false;
    const ex = this.exchange;
    if (ex) this.responseDone(ex);
  };

  /**
   * The response is whole (RESPONSE_DONE): the exchange is over. A reply that ended before the request was
   * written whole leaves the connection unusable (the rest of the request would be read as the next one).
   */
  private responseDone(ex: Exchange): void {
    const earlyReply = !ex.requestSent;
    ex.onResponseComplete();
    this.finishExchange(earlyReply);
  }

  /** Both directions are over: back to the pool, or closed. */
  private finishExchange(earlyReply: boolean): void {
    const ex = this.exchange;
    this.exchange = null;
    if (ex) ex.detach();
    this.staleIfClosed = true;
    if (this.keepAlive && !earlyReply && this.pool.options.keepAlive && !this.closed) {
      // The owner may have stopped reading in the very read that ended the response. A pooled connection
      // reads: the next response, or the backend closing it (test/transport/pooled-connection-reading).
      if (ex?.readPaused) this.resumeReading();
      // Inside llhttp, which reads on past the response's end: what it finds there answers no request (readEnded).
      if (this.parsing) { this.releaseAfterRead = true; this.parser[kOnMessageBegin] = this.onStrayMessage; }
      else this.pool.release(this);
    } else {
      this.destroy();
    }
  }

  private readonly onStrayMessage = (): number => { this.strayBytes = true; return 0; };

  /**
   * The read that ended an exchange inside llhttp is over. Bytes after the response (a response, part of one, garbage)
   * would answer the connection's next request, maybe another client's: it is closed (unsolicited-responses.test.ts).
   */
  private readEnded(broken: boolean): void {
    this.releaseAfterRead = false;
    this.parser[kOnMessageBegin] = undefined;
    if (broken || this.strayBytes || this.closed) this.destroy();
    else this.pool.release(this);
    this.strayBytes = false;
  }

  // ---- failures ---------------------------------------------------------------------------------------

  private readonly onSocketError = (err: NodeJS.ErrnoException): void => {
    const ex = this.exchange;
    // Still writing: a request is on this connection and its end is not written yet.
    const base = baseForSocketError(err.code, this.connected, ex !== null && !ex.requestSent);
    this.fail(base, `${err.code ?? 'error'}: ${err.message}`);
  };

  private readonly onSocketClose = (): void => {
    if (this.connectTimer) { clearTimeout(this.connectTimer); this.connectTimer = null; }
    const ex = this.exchange;
    if (ex && !this.closed) {
      // A close-delimited body ends here; anything else was cut short.
      if (this.bodyLeft > 0) { this.fail(TransportErrorCode.CONNECTION_CLOSED, 'backend closed mid-response'); return; }
      if (isResponding(ex.state)) {
        const r = this.parser.finish();
        if (this.exchange === null) { this.closeQuietly(); return; }
        if (r instanceof Error) { this.fail(TransportErrorCode.CONNECTION_CLOSED, 'backend closed mid-response'); return; }
      }
      if (this.exchange !== null) this.fail(TransportErrorCode.CONNECTION_CLOSED, 'backend closed the connection');
    }
    this.closeQuietly();
  };

  /** The idle watch's sweep: no read, write or drain for the socket timeout fails the exchange, or closes an idle connection. */
  checkIdle(now: number): void {
    if (this.closed || now - this.activeAt <= this.idleLimitMs) return;
    if (this.exchange) this.fail(TransportErrorCode.CONNECTION_TIMED_OUT, `no input for ${this.idleLimitMs} ms`);
    else this.destroy();
  }

  private readonly onConnectTimeout = (): void => {
    this.connectTimer = null;
    if (!this.connected) this.fail(TransportErrorCode.CONNECT_TIMEOUT, `no connection within ${this.pool.options.connectTimeoutMs} ms`);
  };

  private readonly onSocketDrain = (): void => {
    this.activeAt = turnNow();
    const ex = this.exchange;
    if (ex) ex.onDrain();
  };

  private fail(base: TransportErrorCode, reason: string): void {
    const ex = this.exchange;
    this.exchange = null;
    if (ex) {
      this.destroy();
      ex.detach();
      ex.onFailure(base, reason, this.staleIfClosed);
      return;
    }
    if (!this.connected && !this.closed) this.pool.onConnectFailed(this, new BackendTransportError(base, ProtocolState.REQUEST_READY, reason));
    this.destroy();
  }

  private closeQuietly(): void {
    if (this.closed) return;
    this.closed = true;
    idleWatch.unwatch(this);
    // Often called from inside parser.execute (a reply that ends the connection): freeing the parser
    // under its own feet crashes the process, so it is freed once the current callback has returned.
    queueMicrotask(this.freeParser);
    this.pool.onConnectionClosed(this);
  }

  private readonly freeParser = (): void => { this.parser.close(); };

  destroy(): void {
    if (this.connectTimer) { clearTimeout(this.connectTimer); this.connectTimer = null; }
    if (!this.closed) {
      this.socket.destroy();
      this.tunnel?.secure?.destroy();
      this.closeQuietly();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
