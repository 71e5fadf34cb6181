import { ProtocolState } from '../protocol-state.js';
import { BackendTransportError, TransportErrorCode } from '../transport-errors.js';
import { BodyMode, type OutboundRequest, type SenderHandler } from './sender-handler.js';

/** What an exchange needs of the connection that carries it (BackendConnection); it knows no more of it. */
export interface ExchangeWire {
  writeHead(head: string): boolean;
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
 */
export class Exchange {
  state: ProtocolState = ProtocolState.REQUEST_READY;
  conn: ExchangeWire | null = null;
  readPaused = false;
  /** Ended (response complete, failed or aborted): no further callbacks. */
  private finished = false;
  private bodyEnded = false;
  private pending: Buffer[] | null = null;
  private pendingBytes = 0;
  /** A response byte has arrived: a failure now cannot be retried elsewhere. */
  private replied = false;
  private retried = false;

  constructor(readonly pool: ExchangePool, readonly req: OutboundRequest, readonly handler: SenderHandler) {}

  /** Called by the connection when it takes this exchange: writes the head and any buffered body. */
  attach(conn: ExchangeWire): void {
    this.conn = conn;
    this.state = ProtocolState.REQUEST_HEAD;
    this.handler.onConnect();
    if (this.finished) return;
    let ok = conn.writeHead(this.req.head);
    if (this.pending !== null) {
      const chunks = this.pending;
      this.pending = null;
      this.pendingBytes = 0;
      if (chunks.length) this.state = ProtocolState.REQUEST_BODY;
      for (const c of chunks) ok = conn.writeBody(c, this.req.bodyMode) && ok;
      if (ok && !this.bodyEnded) this.handler.onDrain();
    }
    if (this.req.bodyMode === BodyMode.NONE || this.bodyEnded) this.requestDone();
  }

  detach(): void {
    this.conn = null;
  }

  /** Writes part of the request body. False: wait for `onDrain` before writing more. */
  write(chunk: Buffer): boolean {
    if (this.finished || this.bodyEnded) return true;
    const conn = this.conn;
    if (conn === null) {
      (this.pending ??= []).push(chunk);
      this.pendingBytes += chunk.length;
      return this.pendingBytes < this.pool.options.ioBufferSize;
    }
    if (this.state === ProtocolState.REQUEST_HEAD) this.state = ProtocolState.REQUEST_BODY;
    return conn.writeBody(chunk, this.req.bodyMode);
  }

  /** The request body is complete. */
  end(): void {
    if (this.finished || this.bodyEnded) return;
    this.bodyEnded = true;
    if (this.conn !== null) this.requestDone();
  }

  private requestDone(): void {
    this.bodyEnded = true;
    if (this.state < ProtocolState.REQUEST_DONE) this.state = ProtocolState.REQUEST_DONE;
    this.conn!.endBody(this.req.bodyMode);
    if (!this.finished && this.state === ProtocolState.REQUEST_DONE) this.handler.onRequestSent();
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
    if (this.finished) return;
    this.finished = true;
    this.state = ProtocolState.CLOSED;
    this.pending = null;
    const conn = this.conn;
    this.conn = null;
    if (conn !== null) conn.abandon();
    else this.pool.removeWaiting(this);
  }

  get isFinished(): boolean {
    return this.finished;
  }

  // ---- from the connection ----------------------------------------------------------------------------

  onDrain(): void {
    if (!this.finished && !this.bodyEnded) this.handler.onDrain();
  }

  onResponseHead(status: number, statusText: string, headers: string[], keepAlive: boolean, bodyLength: number): void {
    if (this.finished) return;
    this.replied = true;
    this.state = ProtocolState.RESPONSE_HEAD;
    this.handler.onHeaders(status, statusText, headers, keepAlive, bodyLength);
  }

  onResponseData(chunk: Buffer): void {
    if (this.finished) return;
    this.state = ProtocolState.RESPONSE_BODY;
    if (!this.handler.onData(chunk)) this.pause();
  }

  onResponseComplete(): void {
    if (this.finished) return;
    this.finished = true;
    this.state = ProtocolState.RESPONSE_DONE;
    this.handler.onComplete();
  }

  /**
   * The connection failed. On a reused connection that closed before any reply, a request without a
   * body is sent once more on a fresh connection: the backend closed an idle keep-alive connection just
   * as we picked it.
   */
  onFailure(base: TransportErrorCode, reason: string, connectionWasReused: boolean): void {
    if (this.finished) return;
    if (connectionWasReused && !this.replied && !this.retried && this.req.retryable
        && (base === TransportErrorCode.CONNECTION_CLOSED || base === TransportErrorCode.SENDER_IO_ERROR_SENDING)) {
      this.retried = true;
      this.state = ProtocolState.REQUEST_READY;
      this.pool.requeue(this);
      return;
    }
    const state = this.state;
    this.finished = true;
    this.state = ProtocolState.CLOSED;
    this.handler.onError(new BackendTransportError(base, state, reason));
  }

  /** The pool could not get a connection for this exchange. */
  onConnectFailure(err: BackendTransportError): void {
    if (this.finished) return;
    this.finished = true;
    this.state = ProtocolState.CLOSED;
    this.handler.onError(err);
  }
}
