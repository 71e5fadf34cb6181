import { ProtocolState } from '../protocol-state.js';
import { BackendTransportError, TransportErrorCode } from '../transport-errors.js';
import { RequestBody, isFinal, isResponding, requestBodyTransition, transition } from './exchange-state.js';
import { BodyMode, type OutboundRequest, type SenderHandler } from './sender-handler.js';

/** What an exchange needs of the connection that carries it (BackendConnection); it knows no more of it. */
export interface ExchangeWire {
  /** `bodyFollows`: body bytes are written next, and should leave in the head's system call when they come at once. */
  writeHead(head: string, bodyFollows: boolean): boolean;
  writeBody(chunk: Buffer, mode: BodyMode): boolean;
  endBody(mode: BodyMode): void;
  pauseReading(): void;
  resumeReading(): void;
  /** The owner gave up on the exchange: the connection cannot be trusted for reuse. */
  abandon(): void;
}

/** What an exchange needs of its pool (HostPool). */
export interface ExchangePool {
  readonly options: { readonly ioBufferSize: number };
  /** Sends the exchange again, on another connection. */
  requeue(ex: Exchange): void;
  /** The exchange no longer waits for a connection. */
  removeWaiting(ex: Exchange): void;
}

/**
 * One request/response with a backend, and its protocol state. The owner writes the request body with
 * `write`/`end` (back-pressure: `write` returns false, then `onDrain`), reads the response through its
 * SenderHandler, and may `abort` at any time. Body bytes written before a connection is assigned wait here.
 *
 * The state moves only through the checked table of exchange-state.ts. Whether the exchange is over and
 * whether a reply has begun are read from it; the request body's progress is a second, smaller state beside
 * it, because the owner's end can come before any connection and after an early reply.
 */
export class Exchange {
  private current: ProtocolState = ProtocolState.REQUEST_READY;
  private body: RequestBody = RequestBody.OPEN;
  conn: ExchangeWire | null = null;
  /** The owner's back-pressure on the response, which it may put on in any state. */
  readPaused = false;
  private pending: Buffer[] | null = null;
  private pendingBytes = 0;
  /** Sent once more already: a second failure is final (history, which no state holds). */
  private retried = false;

  constructor(readonly pool: ExchangePool, readonly req: OutboundRequest, readonly handler: SenderHandler) {}

  get state(): ProtocolState {
    return this.current;
  }

  /** Ended (response complete, failed or aborted): no further callbacks. */
  get isFinished(): boolean {
    return isFinal(this.current);
  }

  /** The whole request, its end included, has been written to the connection. */
  get requestSent(): boolean {
    return this.body === RequestBody.SENT;
  }

  private moveTo(to: ProtocolState): void {
    this.current = transition(this.current, to);
  }

  private bodyTo(to: RequestBody): void {
    this.body = requestBodyTransition(this.body, to);
  }

  /** Called by the connection when it takes this exchange: writes the head and any buffered body. */
  attach(conn: ExchangeWire): void {
    this.conn = conn;
    this.moveTo(ProtocolState.REQUEST_HEAD);
    this.handler.onConnect();
    if (this.isFinished) return;
    let ok = conn.writeHead(this.req.head, this.req.bodyMode !== BodyMode.NONE);
    if (this.pending !== null) {
      const chunks = this.pending;
      this.pending = null;
      this.pendingBytes = 0;
      if (chunks.length) this.moveTo(ProtocolState.REQUEST_BODY);
      for (const c of chunks) ok = conn.writeBody(c, this.req.bodyMode) && ok;
      if (ok && this.body === RequestBody.OPEN) this.handler.onDrain();
      // The owner may have ended the body, or given up, from inside onDrain.
      if (this.body === RequestBody.SENT || this.isFinished) return;
    }
    if (this.req.bodyMode === BodyMode.NONE || this.body === RequestBody.ENDED) this.requestDone();
  }

  detach(): void {
    this.conn = null;
  }

  /**
   * Writes part of the request body. False: wait for `onDrain` before writing more. The piece may be only
   * lent (a view of the front door's read buffer): what waits for the connection is a copy.
   */
  write(chunk: Buffer): boolean {
    if (this.body !== RequestBody.OPEN || this.isFinished) return true;
    const conn = this.conn;
    if (conn === null) {
      (this.pending ??= []).push(Buffer.from(chunk));
      this.pendingBytes += chunk.length;
      return this.pendingBytes < this.pool.options.ioBufferSize;
    }
    if (this.current === ProtocolState.REQUEST_HEAD) this.moveTo(ProtocolState.REQUEST_BODY);
    return conn.writeBody(chunk, this.req.bodyMode);
  }

  /** The request body is complete. */
  end(): void {
    if (this.body !== RequestBody.OPEN || this.isFinished) return;
    if (this.conn !== null) this.requestDone();
    else this.bodyTo(RequestBody.ENDED);
  }

  private requestDone(): void {
    this.bodyTo(RequestBody.SENT);
    const s = this.current;
    // After an early reply the state stays with the response; the request's end is still written.
    if (s === ProtocolState.REQUEST_HEAD || s === ProtocolState.REQUEST_BODY) this.moveTo(ProtocolState.REQUEST_DONE);
    this.conn!.endBody(this.req.bodyMode);
    if (this.current === ProtocolState.REQUEST_DONE) this.handler.onRequestSent();
  }

  /** Stop reading the response until `resume` (the client is slow). */
  pause(): void {
    if (this.readPaused) return;
    this.readPaused = true;
    this.conn?.pauseReading();
  }

  resume(): void {
    if (!this.readPaused) return;
    this.readPaused = false;
    this.conn?.resumeReading();
  }

  /** The owner gives up (client gone, deadline passed): frees the connection; no callback follows. */
  abort(): void {
    if (this.isFinished) return;
    this.moveTo(ProtocolState.CLOSED);
    this.pending = null;
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) conn.abandon();
    else this.pool.removeWaiting(this);
  }

  // ---- from the connection ----------------------------------------------------------------------------

  onDrain(): void {
    if (this.body === RequestBody.OPEN && !this.isFinished) this.handler.onDrain();
  }

  onResponseHead(status: number, statusText: string, headers: string[], keepAlive: boolean, bodyLength: number): void {
    if (this.isFinished) return;
    this.moveTo(ProtocolState.RESPONSE_HEAD);
    this.handler.onHeaders(status, statusText, headers, keepAlive, bodyLength);
  }

  onResponseData(chunk: Buffer): void {
    if (this.isFinished) return;
    if (this.current !== ProtocolState.RESPONSE_BODY) this.moveTo(ProtocolState.RESPONSE_BODY);
    if (!this.handler.onData(chunk)) this.pause();
  }

  onResponseComplete(): void {
    if (this.isFinished) return;
    this.moveTo(ProtocolState.RESPONSE_DONE);
    this.handler.onComplete();
  }

  /**
   * The connection failed. On a reused connection that closed before any byte of the reply, a retryable
   * request (idempotent, without a body: idempotent-methods.ts) is sent once more on a fresh connection: the
   * backend closed an idle keep-alive connection just as we picked it.
   */
  onFailure(base: TransportErrorCode, reason: string, staleIfClosed: boolean): void {
    if (this.isFinished) return;
    if (staleIfClosed && !isResponding(this.current) && !this.retried && this.req.retryable
        && (base === TransportErrorCode.CONNECTION_CLOSED || base === TransportErrorCode.SENDER_IO_ERROR_SENDING)) {
      this.retried = true;
      this.moveTo(ProtocolState.REQUEST_READY);
      if (this.body === RequestBody.SENT) this.bodyTo(RequestBody.ENDED);
      this.pool.requeue(this);
      return;
    }
    const state = this.current;
    this.moveTo(ProtocolState.CLOSED);
    this.handler.onError(new BackendTransportError(base, state, reason));
  }

  /** The pool could not get a connection for this exchange. */
  onConnectFailure(err: BackendTransportError): void {
    if (this.isFinished) return;
    this.moveTo(ProtocolState.CLOSED);
    this.handler.onError(err);
  }
}
