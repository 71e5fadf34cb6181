import tls from 'node:tls';
import type { HostPool } from '../../transport/sender/host-pool.js';
import { HostPool as Pool } from '../../transport/sender/host-pool.js';
import type { HostPoolOptions } from '../../transport/sender/pool-options.js';
import type { ProxyRules } from '../../transport/sender/proxy-rules.js';

/** Where a call goes: the pool of connections and what the request line and Host header must say. */
export interface BackendTarget {
  readonly url: string;
  readonly pool: HostPool;
  /** Path prefix of the endpoint URL, without a trailing slash (`/pizzashack/v1`, or ``). */
  readonly basePath: string;
  readonly hostHeader: string;
  readonly tls: boolean;
  /** A plain-HTTP forward proxy wants the absolute URI in the request line. */
  readonly absolutePrefix: string;
  /** `proxy-authorization: Basic ...\r\n` for a plain-HTTP forward proxy with credentials, else ''. */
  readonly proxyAuthorizationLine: string;
  readonly host: string;
}

export interface SenderSettings {
  readonly socketTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxConnectionsPerHostPort: number;
  readonly keepAlive: boolean;
  readonly ioBufferSize: number;
  readonly maxHeaderSize: number;
  /** Trusted CA certificates (PEM) for TLS backends; undefined: the system's. */
  readonly ca: readonly string[] | undefined;
  /** AllowAll | DefaultAndLocalhost | Strict | Default. */
  readonly hostnameVerifier: string;
  readonly clientKeyPem: string | undefined;
  readonly clientCertPem: string | undefined;
}

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function identityCheck(verifier: string): tls.ConnectionOptions['checkServerIdentity'] {
  const v = verifier.toLowerCase();
  if (v === 'allowall') return () => undefined;
  if (v === 'defaultandlocalhost') return (host, cert) => (LOCAL_NAMES.has(host) ? undefined : tls.checkServerIdentity(host, cert));
  return tls.checkServerIdentity;
}

/**
 * The sender pools of one io thread, by backend origin and proxy. Targets are resolved when an API is
 * deployed, so a call only follows a reference.
 */
export class SenderPools {
  private readonly pools = new Map<string, HostPool>();
  private readonly readBuffer: Buffer;

  constructor(
    private readonly settings: SenderSettings,
    private readonly httpProxies: ProxyRules,
    private readonly httpsProxies: ProxyRules,
  ) {
    // One read buffer per thread: reads are parsed synchronously, so sockets can share it. At least 64 KiB
    // whatever io_buffer_size says: a 1 MiB response then takes 16 reads, not 64, each its own parse and
    // write to the client (1.78x the requests/s of 16 KiB here, docs/tuning.md).
    this.readBuffer = Buffer.allocUnsafe(Math.max(65536, settings.ioBufferSize));
  }

  /** `extraCa`: certificates trusted for this target besides the sender trust store (the local key manager). */
  target(url: string, extraCa?: readonly string[]): BackendTarget {
    const u = new URL(url);
    const secure = u.protocol === 'https:' || u.protocol === 'wss:';
    const port = Number(u.port || (secure ? 443 : 80));
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const proxy = (secure ? this.httpsProxies : this.httpProxies).select(host);
    const key = `${secure ? 'https' : 'http'}://${host}:${port}${proxy ? ` via ${proxy.host}:${proxy.port}` : ''}${extraCa ? ' +ca' : ''}`;
    let pool = this.pools.get(key);
    if (!pool) {
      const s = this.settings;
      const options: HostPoolOptions = {
        host, port,
        tls: secure ? {
          servername: /^[\d.]+$|:/.test(host) ? undefined : host,
          ...(s.ca || extraCa ? { ca: [...(s.ca ?? (extraCa ? tls.rootCertificates : [])), ...(extraCa ?? [])] } : {}),
          rejectUnauthorized: true,
          checkServerIdentity: identityCheck(s.hostnameVerifier),
          ...(s.clientKeyPem && s.clientCertPem ? { key: s.clientKeyPem, cert: s.clientCertPem } : {}),
        } : null,
        proxy,
        maxConnections: s.maxConnectionsPerHostPort,
        keepAlive: s.keepAlive,
        socketTimeoutMs: s.socketTimeoutMs,
        connectTimeoutMs: s.connectTimeoutMs,
        ioBufferSize: s.ioBufferSize,
        maxHeaderSize: s.maxHeaderSize,
      };
      pool = new Pool(key, options, this.readBuffer);
      this.pools.set(key, pool);
    }
    const defaultPort = secure ? 443 : 80;
    const hostHeader = port === defaultPort ? u.host.replace(/:\d+$/, '') : u.host;
    return {
      url,
      pool,
      basePath: u.pathname.replace(/\/+$/, ''),
      hostHeader,
      tls: secure,
      absolutePrefix: proxy && !secure ? `http://${u.host}` : '',
      proxyAuthorizationLine: proxy && !secure && proxy.authorization ? `proxy-authorization: ${proxy.authorization}\r\n` : '',
      host,
    };
  }

  stats(): ReturnType<HostPool['stats']>[] {
    return [...this.pools.values()].map((p) => p.stats());
  }

  closeIdle(): void {
    for (const p of this.pools.values()) p.closeIdle();
  }

  destroyAll(): void {
    for (const p of this.pools.values()) p.destroyAll();
  }
}
