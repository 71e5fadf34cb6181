import net from 'node:net';
import tls from 'node:tls';
import { createRequire } from 'node:module';
import type { DoorConfig } from '../../conf/views/front-door.js';
import { ClientConnection } from './client-connection.js';
import type { DoorHandler } from './door-handler.js';
import { KeptRead } from './kept-read.js';

/** The TLS material of an HTTPS listener (PEM). */
export interface DoorTls {
  readonly keyPem: string;
  readonly passphrase: string | undefined;
  readonly certPem: string;
  /** CAs that client certificates must chain to; with `clientAuth` 'require' or 'optional'. */
  readonly caPem: string | undefined;
  readonly clientAuth: 'none' | 'optional' | 'require';
  readonly ciphers: string | undefined;
  readonly minVersion: tls.SecureVersion;
}

export interface DoorListener {
  readonly bindAddress: string;
  readonly port: number;
  readonly tls: DoorTls | null;
}

interface RawHandle { setNoDelay(on: boolean): void; getpeername(out: { address?: string }): number }
interface ServerWithHandle { _handle: { onconnection: (err: number, h: RawHandle | undefined) => void } | null }

const require = createRequire(import.meta.url);
let reuseport: ((port: number, host: string) => number) | null | undefined;
/**
 * A listening socket of this thread's own with SO_REUSEPORT: each io thread accepts on its own socket and the
 * kernel spreads connections between them (Node 20 has no `reusePort`; node-unix-socket makes the socket).
 */
function reuseportFd(port: number, host: string): number | null {
  if (reuseport === undefined) {
    try { reuseport = (require('node-unix-socket') as { createReuseportFd(port: number, host: string): number }).createReuseportFd; } catch { reuseport = null; }
  }
  return reuseport === null ? null : reuseport(port, host);
}

/**
 * The gateway's front door on one io thread: its listeners (plain and TLS), its client connections, and the
 * sweeper that applies their timeouts. Plain connections read into one buffer shared by the thread (the
 * `onread` design of the sender); TLS ones through their `data` events.
 */
export class FrontDoor {
  private readonly connections = new Set<ClientConnection>();
  private readonly servers: net.Server[] = [];
  private readonly readBuffer: Buffer;
  private readonly sweeper: NodeJS.Timeout;
  private draining = false;
  /** Connections accepted since the start (metrics, tests). */
  accepted = 0;
  /** The last read that was one whole request head, replayed while reads repeat it (kept-read.ts). */
  readonly kept = new KeptRead();

  constructor(private readonly cfg: DoorConfig, private readonly handler: DoorHandler, readBufferSize: number, private readonly shared: boolean) {
    this.readBuffer = Buffer.allocUnsafe(Math.max(16384, readBufferSize));
    this.sweeper = setInterval(this.sweep, 1000);
    this.sweeper.unref();
  }

  get connectionCount(): number { return this.connections.size; }

  /** Opens a listener; resolves with its port. */
  listen(l: DoorListener): Promise<number> {
    const fd = this.shared ? reuseportFd(l.port, l.bindAddress) : null;
    if (this.shared && fd === null) {
      return Promise.reject(new Error('more than one io thread needs SO_REUSEPORT (the node-unix-socket package did not load); set [passthru_http] io_threads_per_reactor = 1'));
    }
    const server = l.tls === null ? this.plainServer() : this.tlsServer(l.tls);
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(new Error(`cannot listen on ${l.bindAddress}:${l.port}: ${err.message}`));
      server.once('error', onError);
      const ready = (): void => {
        server.removeListener('error', onError);
        if (l.tls === null) this.takeConnections(server);
        resolve((server.address() as net.AddressInfo).port);
      };
      if (fd !== null) server.listen({ fd }, ready);
      else server.listen({ host: l.bindAddress, port: l.port }, ready);
    });
  }

  private plainServer(): net.Server {
    return net.createServer({ noDelay: true });
  }

  /**
   * Accepted handles become sockets with the thread's read buffer: net.Server would make each its own
   * stream that allocates a Buffer per read, a fifth of a small proxied call's CPU.
   */
  private takeConnections(server: net.Server): void {
    const h = (server as unknown as ServerWithHandle)._handle;
    if (h === null) return;
    h.onconnection = (err, handle) => {
      if (err !== 0 || handle === undefined) return;
      handle.setNoDelay(true);
      const peer: { address?: string } = {};
      handle.getpeername(peer);
      let conn: ClientConnection | null = null;
      const onread = { buffer: this.readBuffer, callback: (n: number, buf: Buffer): boolean => conn!.onRead(n, buf) };
      const socket = new net.Socket({ handle, onread, allowHalfOpen: true } as unknown as net.SocketConstructorOpts);
      conn = new ClientConnection(socket, false, peer.address ?? '', this.cfg, this.handler, this.kept);
      this.add(conn);
      socket.resume();
    };
  }

  private tlsServer(t: DoorTls): net.Server {
    const server = tls.createServer({
      key: t.keyPem, passphrase: t.passphrase, cert: t.certPem,
      ...(t.caPem !== undefined && t.clientAuth !== 'none' ? { ca: t.caPem, requestCert: true, rejectUnauthorized: t.clientAuth === 'require' } : {}),
      ...(t.ciphers !== undefined ? { ciphers: t.ciphers } : {}),
      minVersion: t.minVersion,
      ALPNProtocols: ['http/1.1'],
      handshakeTimeout: this.cfg.timeouts.headerMs,
      allowHalfOpen: true,
      noDelay: true,
    } as tls.TlsOptions);
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      const conn = new ClientConnection(socket, true, socket.remoteAddress ?? '', this.cfg, this.handler, this.kept);
      socket.on('data', conn.onData);
      this.add(conn);
    });
    // A failed handshake is the client's business: the socket is closed by node:tls.
    server.on('tlsClientError', () => {});
    return server;
  }

  private add(conn: ClientConnection): void {
    this.accepted++;
    conn.onClosed = this.remove;
    this.connections.add(conn);
    if (this.draining) conn.drain();
  }

  private readonly remove = (conn: ClientConnection): void => { this.connections.delete(conn); };

  private readonly sweep = (): void => {
    if (this.connections.size === 0) return;
    const now = Date.now();
    for (const c of this.connections) c.checkTimeouts(now);
  };

  /** No new connections: the listeners close (connections already open go on). */
  closeListeners(): void {
    for (const s of this.servers.splice(0)) s.close();
  }

  /** Graceful stop: idle connections close now, busy ones after their current response. */
  drain(): void {
    this.draining = true;
    for (const c of [...this.connections]) c.drain();
  }

  /** Every connection closed, now. */
  destroyAll(): void {
    clearInterval(this.sweeper);
    for (const c of [...this.connections]) c.destroy();
  }
}
