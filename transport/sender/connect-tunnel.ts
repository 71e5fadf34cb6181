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
