import type tls from 'node:tls';

export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
  /** `Basic ...` for proxy_username/proxy_password. */
  readonly authorization?: string;
}

/** How a pool reaches its backend host:port, and the limits of its connections. */
export interface HostPoolOptions {
  readonly host: string;
  readonly port: number;
  /** TLS options for https backends (servername, ca, checkServerIdentity...), null for plain http. */
  readonly tls: tls.ConnectionOptions | null;
  readonly proxy: ProxyTarget | null;
  /** http.max.connection.per.host.port */
  readonly maxConnections: number;
  /** !disable_connection_keepalive */
  readonly keepAlive: boolean;
  /** http.socket.timeout: no input within this period fails the exchange (101504 + state). */
  readonly socketTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** io_buffer_size: read buffer size and the request-body high-water mark. */
  readonly ioBufferSize: number;
  readonly maxHeaderSize: number;
}
