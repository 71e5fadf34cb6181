import type net from 'node:net';
import tls from 'node:tls';
import type { HostPoolOptions } from './pool-options.js';

const CRLF = '\r\n';

/** The most of a forward proxy's reply head to CONNECT that is read before giving up on it. */
const MAX_REPLY_HEAD = 16384;

/** The CONNECT request that asks a forward proxy for a tunnel to `host:port` (HTTPS backends behind a proxy). */
export function connectRequest(host: string, port: number, proxyAuthorization: string | undefined): string {
  const auth = proxyAuthorization ? `proxy-authorization: ${proxyAuthorization}${CRLF}` : '';
  return `CONNECT ${host}:${port} HTTP/1.1${CRLF}host: ${host}:${port}${CRLF}${auth}${CRLF}`;
}

/** Where the proxy's reply stands: more to read, the tunnel open, or refused (`reason` says why). */
export const enum TunnelState { READING, OPEN, REFUSED }

/** A forward proxy's reply to CONNECT, read piece by piece up to the end of its head. */
export class TunnelReply {
  private head = '';
  /** Why the tunnel was refused (TunnelState.REFUSED). */
  reason = '';

  read(data: Buffer): TunnelState {
    this.head += data.toString('latin1');
    const end = this.head.indexOf(CRLF + CRLF);
    if (end < 0) {
      if (this.head.length <= MAX_REPLY_HEAD) return TunnelState.READING;
      this.reason = 'proxy CONNECT reply too long';
      return TunnelState.REFUSED;
    }
    if (Number(this.head.slice(9, 12)) === 200) return TunnelState.OPEN;
    this.reason = `proxy refused CONNECT: ${this.head.split(CRLF)[0]}`;
    return TunnelState.REFUSED;
  }
}

/** What a connection through a tunnel is told: the TLS socket once the tunnel is open, or why the proxy refused it. */
export interface TunnelOwner {
  onTunnelOpen(secure: tls.TLSSocket): void;
  onTunnelRefused(reason: string): void;
}

/**
 * HTTPS to a backend through a forward proxy: CONNECT on the plain socket once it is connected, the proxy's
 * reply read up to its head's end (`replying`: the socket's bytes are the reply's, not HTTP), then TLS over
 * the tunnel.
 */
export class Tunnel {
  private reply: TunnelReply | null = new TunnelReply();
  /** TLS over the tunnel, once it is open. */
  secure: tls.TLSSocket | null = null;

  constructor(private readonly socket: net.Socket, private readonly o: HostPoolOptions, private readonly owner: TunnelOwner) {}

  get replying(): boolean {
    return this.reply !== null;
  }

  /** The plain socket is connected: ask the proxy for the tunnel. */
  start(): void {
    this.socket.write(connectRequest(this.o.host, this.o.port, this.o.proxy?.authorization));
  }

  /** Bytes of the proxy's reply (while `replying`). */
  read(data: Buffer): void {
    const reply = this.reply!;
    const state = reply.read(data);
    if (state === TunnelState.READING) return;
    this.reply = null;
    if (state === TunnelState.REFUSED) { this.owner.onTunnelRefused(reply.reason); return; }
    this.secure = tls.connect({ ...this.o.tls!, socket: this.socket });
    this.owner.onTunnelOpen(this.secure);
  }
}
