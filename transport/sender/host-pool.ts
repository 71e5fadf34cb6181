import { BackendConnection, type ConnectionPool } from './backend-connection.js';
import { Exchange, type ExchangePool } from './exchange.js';
import type { HostPoolOptions } from './pool-options.js';
import type { OutboundRequest, SenderHandler } from './sender-handler.js';
import type { BackendTransportError } from '../transport-errors.js';

/** Gauges the metrics endpoint reads. */
export interface HostPoolStats {
  readonly key: string;
  /** `http(s)://host:port` of the backend, without the proxy or trust details the key adds (a metrics label). */
  readonly origin: string;
  readonly open: number;
  readonly idle: number;
  readonly busy: number;
  readonly connecting: number;
  readonly waiting: number;
}

/**
 * The connections of one io thread to one backend host:port (and proxy): idle keep-alive connections are
 * reused newest first; at `maxConnections` exchanges wait in order.
 */
export class HostPool implements ConnectionPool, ExchangePool {
  private readonly idle: BackendConnection[] = [];
  private readonly all = new Set<BackendConnection>();
  private readonly waiting: Exchange[] = [];
  private connecting = 0;

  constructor(readonly key: string, readonly options: HostPoolOptions, private readonly readBuffer: Buffer) {}

  dispatch(req: OutboundRequest, handler: SenderHandler): Exchange {
    const ex = new Exchange(this, req, handler);
    this.start(ex);
    return ex;
  }

  private start(ex: Exchange): void {
    let conn: BackendConnection | undefined;
    while ((conn = this.idle.pop()) !== undefined) {
      if (!conn.isClosed) { conn.assign(ex); return; }
    }
    this.waiting.push(ex);
    this.grow();
  }

  /** Opens a connection when exchanges wait and the cap allows. */
  private grow(): void {
    while (this.waiting.length > this.connecting && this.all.size < this.options.maxConnections) {
      this.connecting++;
      this.all.add(new BackendConnection(this, this.readBuffer));
    }
  }

  requeue(ex: Exchange): void {
    this.start(ex);
  }

  removeWaiting(ex: Exchange): void {
    const i = this.waiting.indexOf(ex);
    if (i >= 0) this.waiting.splice(i, 1);
  }

  onConnectionReady(conn: BackendConnection): void {
    this.connecting--;
    this.release(conn);
  }

  /** A connection is free: give it to the next waiting exchange, else keep it idle. */
  release(conn: BackendConnection): void {
    const next = this.waiting.shift();
    if (next !== undefined) conn.assign(next);
    else this.idle.push(conn);
  }

  onConnectFailed(conn: BackendConnection, err: BackendTransportError): void {
    this.connecting--;
    this.all.delete(conn);
    // The attempt was made for the oldest waiting exchange: it gets the error; the others get their own attempt.
    const ex = this.waiting.shift();
    if (ex !== undefined) ex.onConnectFailure(err);
    this.grow();
  }

  onConnectionClosed(conn: BackendConnection): void {
    if (!this.all.delete(conn)) return;
    if (!conn.connected) this.connecting--;
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    this.grow();
  }

  stats(): HostPoolStats {
    return {
      key: this.key,
      origin: `${this.options.tls ? 'https' : 'http'}://${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${this.options.port}`,
      open: this.all.size,
      idle: this.idle.length,
      busy: this.all.size - this.idle.length - this.connecting,
      connecting: this.connecting,
      waiting: this.waiting.length,
    };
  }

  /** Closes idle connections (stop, config change); busy ones close when their exchange ends. */
  closeIdle(): void {
    for (const c of this.idle.splice(0)) c.destroy();
  }

  destroyAll(): void {
    for (const c of [...this.all]) c.destroy();
    this.idle.length = 0;
  }
}
