import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import { HttpError, BodyAbortedError, BodyTooLargeError } from './errors.js';
import { ServletRequest } from './request.js';
import type { Reply } from './reply.js';
import { Router, type Handler, type RouteOptions } from './router.js';
import { performance } from 'node:perf_hooks';

/** One listening port of the servlet transport. */
export interface ServletConnectorOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly maxHeaderSize?: number;
  /** ms a request's body may take to arrive (connectionUploadTimeout); 0: only requestTimeout bounds it. */
  readonly uploadTimeout?: number;
  /** Connections held at once; beyond, new ones are closed at accept. Absent: no limit. */
  readonly maxConnections?: number;
  readonly keepAliveTimeout?: number;
  /** Requests per connection; 0: no limit. */
  readonly maxKeepAliveRequests?: number;
  /** Value of the Server header; none when absent. */
  readonly serverHeader?: string;
}

export interface ServletTlsOptions {
  readonly key: string;
  readonly cert: string;
  readonly passphrase?: string;
  readonly ca?: string;
  readonly requestCert?: boolean;
  readonly rejectUnauthorized?: boolean;
  readonly minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  readonly ciphers?: string;
}

export interface ServletServerOptions {
  readonly log: Logger;
  /** Default 0.0.0.0. */
  readonly host?: string;
  readonly https?: ServletConnectorOptions & { readonly tls: ServletTlsOptions };
  readonly http?: ServletConnectorOptions;
  /** Default body limit of the routes, bytes (default 1 MiB). */
  readonly maxBodySize?: number;
  /** ms a client has to send the request head (default 10 s). */
  readonly headersTimeout?: number;
  /** ms a client has to send the whole request (default 20 s); the connector's uploadTimeout, when shorter, wins. */
  readonly requestTimeout?: number;
  /** ms requests in flight may take to finish on stop (default 10 s). */
  readonly gracefulStopTimeout?: number;
}

/** One finished request, for the access log and the metrics (no header but User-Agent and Referer). */
export interface ServletRequestLog {
  /** ms since the epoch. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly method: string;
  readonly path: string;
  /** Raw query string without `?` (the access log masks credential parameters). */
  readonly query: string;
  readonly clientIp: string;
  readonly status: number;
  readonly bytes: number;
  readonly userAgent: string;
  readonly referer: string;
  readonly secure: boolean;
}

export interface ServletAddresses {
  readonly https?: number;
  readonly http?: number;
}

const ERROR_NAMES: Record<number, string> = {
  400: 'invalid_request', 404: 'not_found', 405: 'method_not_allowed', 408: 'request_timeout',
  413: 'payload_too_large', 415: 'unsupported_media_type', 429: 'too_many_requests', 431: 'request_header_fields_too_large', 500: 'server_error',
  503: 'temporarily_unavailable',
};

/**
 * The servlet transport: node:https on [transport.https.properties] port (9443) and node:http on
 * [transport.http.properties] port (9763), one router for both. The key manager, the admin REST API, the
 * health check and the metrics mount their routes on it. A handler returns a Reply; a thrown HttpError
 * answers with its status; anything else thrown is a 500 and a log line. Bad input (malformed or huge
 * bodies, slow clients, broken TLS) gets an answer or a closed socket, never a crash.
 */
export class ServletServer {
  private readonly router = new Router();
  private readonly servers: { name: 'https' | 'http'; server: http.Server; opts: ServletConnectorOptions }[] = [];
  private readonly log: Logger;
  private readonly maxBodySize: number;
  private inFlight = 0;
  private stopping = false;
  private started = false;
  private drained: (() => void) | undefined;
  private readonly bound: { https?: number; http?: number } = {};
  private observer: ((r: ServletRequestLog) => void) | null = null;

  constructor(private readonly options: ServletServerOptions) {
    this.log = options.log;
    this.maxBodySize = options.maxBodySize ?? 1024 * 1024;
    const headersTimeout = options.headersTimeout ?? 10_000;
    const make = (name: 'https' | 'http', c: ServletConnectorOptions, tls?: ServletTlsOptions): void => {
      const upload = c.uploadTimeout ?? 120_000;
      const whole = options.requestTimeout ?? 20_000;
      const common: http.ServerOptions = {
        maxHeaderSize: c.maxHeaderSize ?? 8192,
        // A slow body holds a connection (and a file descriptor) for at most this long, then gets 408. Node
        // requires headersTimeout <= requestTimeout.
        requestTimeout: Math.max(upload > 0 ? Math.min(upload, whole) : whole, headersTimeout),
        headersTimeout,
        keepAliveTimeout: c.keepAliveTimeout ?? 60_000,
        connectionsCheckingInterval: Math.min(1000, headersTimeout),
      };
      const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => { void this.dispatch(req, res, c); };
      const server = tls
        ? https.createServer({
          ...common,
          key: tls.key, cert: tls.cert, passphrase: tls.passphrase, ca: tls.ca,
          requestCert: tls.requestCert ?? false, rejectUnauthorized: tls.rejectUnauthorized ?? false,
          minVersion: tls.minVersion ?? 'TLSv1.2', ciphers: tls.ciphers,
        }, handler)
        : http.createServer(common, handler);
      if (c.maxKeepAliveRequests) server.maxRequestsPerSocket = c.maxKeepAliveRequests;
      // Beyond the cap node closes a new connection at accept (before a TLS handshake): the port cannot
      // take the process's file descriptors from the gateway.
      if (c.maxConnections !== undefined) server.maxConnections = c.maxConnections;
      server.on('drop', () => this.onDrop(name, c));
      server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.onClientError(err, socket));
      server.on('tlsClientError', (err: Error) => this.log.debug({ err: err.message }, 'TLS handshake failed'));
      server.on('error', (err: Error) => { if (this.started) this.log.error({ err: err.message, port: c.port }, 'servlet listener error'); });
      this.servers.push({ name, server, opts: c });
    };
    if (options.https) make('https', options.https, options.https.tls);
    if (options.http) make('http', options.http);
  }

  /** Mounts a handler: exact path, or `/prefix/*`; method `*` for any. */
  route(method: string, path: string, handler: Handler, options?: RouteOptions): this {
    this.router.add(method, path, handler, options);
    return this;
  }

  /** Called once per finished request (access log, metrics). */
  observe(fn: ((r: ServletRequestLog) => void) | null): void {
    this.observer = fn;
  }

  async start(): Promise<ServletAddresses> {
    const host = this.options.host ?? '0.0.0.0';
    for (const s of this.servers) {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException): void => {
          reject(new Error(`the servlet ${s.name.toUpperCase()} port ${host}:${s.opts.port} cannot be opened: ${err.code === 'EADDRINUSE' ? 'address in use' : err.code === 'EACCES' ? 'permission denied' : err.message}`));
        };
        s.server.once('error', onError);
        s.server.listen(s.opts.port, host, () => { s.server.off('error', onError); resolve(); });
      }).catch(async (err) => { await this.closeServers(0); throw err; });
      const addr = s.server.address();
      this.bound[s.name] = typeof addr === 'object' && addr ? addr.port : s.opts.port;
    }
    this.started = true;
    return this.addresses();
  }

  addresses(): ServletAddresses {
    return { ...this.bound };
  }

  /** Connections open on each port now (metrics). */
  async connections(): Promise<{ port: 'https' | 'http'; open: number }[]> {
    return Promise.all(this.servers.map((s) => new Promise<{ port: 'https' | 'http'; open: number }>((resolve) => {
      s.server.getConnections((err, n) => resolve({ port: s.name, open: err ? 0 : n }));
    })));
  }

  /** Stops accepting, lets requests in flight finish (up to the graceful timeout), then closes every connection. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.closeServers(this.options.gracefulStopTimeout ?? 10_000);
  }

  private async closeServers(timeout: number): Promise<void> {
    const closed = this.servers.map((s) => new Promise<void>((resolve) => {
      if (!s.server.listening) { resolve(); return; }
      s.server.close(() => resolve());
      s.server.closeIdleConnections();
    }));
    if (this.inFlight > 0 && timeout > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeout);
        this.drained = () => { clearTimeout(timer); resolve(); };
      });
    }
    for (const s of this.servers) s.server.closeAllConnections();
    await Promise.all(closed);
  }

  /** Connections closed at accept because a port held maxConnections, since start (metrics). */
  get droppedConnections(): number {
    return this.dropped;
  }

  private dropped = 0;
  private droppedLogged = 0;
  private dropLogAt = 0;

  /** A connection closed at accept: counted, and logged at most every 10 s with the count since the last line. */
  private onDrop(name: 'https' | 'http', c: ServletConnectorOptions): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.dropLogAt < 10_000) return;
    this.dropLogAt = now;
    this.log.warn({ port: name, maxConnections: c.maxConnections, dropped: this.dropped - this.droppedLogged },
      'servlet port at maxConnections: new connections are closed at accept ([transport.http(s).properties] maxConnections)');
    this.droppedLogged = this.dropped;
  }

  private onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
    const code = err.code ?? '';
    this.log.debug({ code, err: err.message }, 'bad request on a servlet port');
    // A request timed out while its handler waited for the body: answer 408 unless the answer has begun.
    const pending = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (!socket.writable || (pending && pending.headersSent)) { socket.destroy(); return; }
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const reason = http.STATUS_CODES[status] ?? 'Bad Request';
    const body = JSON.stringify({ error: ERROR_NAMES[status], error_description: status === 400 ? 'malformed HTTP request' : reason });
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    socket.destroySoon();
  }

  private async dispatch(req: http.IncomingMessage, res: http.ServerResponse, c: ServletConnectorOptions): Promise<void> {
    this.inFlight++;
    const startedAt = Date.now();
    const t0 = performance.now();
    res.on('error', (err) => this.log.debug({ err: err.message }, 'servlet response error'));
    req.on('error', () => { /* reported through the body reader */ });
    let sreq: ServletRequest | undefined;
    try {
      const match = this.router.match((req.method ?? 'GET').toUpperCase(), pathOf(req.url));
      const limit = match.kind === 'found' ? match.route.options.maxBodySize ?? this.maxBodySize : this.maxBodySize;
      sreq = new ServletRequest(req, randomUUID(), limit);
      let reply: Reply;
      try {
        if (match.kind === 'not_found') throw new HttpError(404, `no resource at ${sreq.method} ${sreq.path}`, 'SLUICE_SERVLET_NOT_FOUND');
        if (match.kind === 'method_not_allowed') {
          throw new HttpError(405, `${sreq.method} is not allowed on ${sreq.path}`, 'SLUICE_SERVLET_METHOD_NOT_ALLOWED', { allow: match.allow.join(', ') });
        }
        reply = await match.route.handler(sreq);
      } catch (err) {
        reply = this.errorReply(err, sreq);
      }
      if (reply.status === 0) { req.socket.destroy(); return; }
      this.write(req, res, reply, c);
    } catch (err) {
      // A bug in writing the answer: log it, drop the connection, keep the process.
      this.log.error({ err: (err as Error).stack ?? String(err), path: sreq?.path }, 'servlet request failed');
      req.socket.destroy();
    } finally {
      const done = (): void => {
        this.inFlight--;
        if (this.inFlight === 0 && this.drained) this.drained();
        const observer = this.observer;
        if (observer) {
          const url = req.url ?? '/';
          const q = url.indexOf('?');
          const header = (n: string): string => { const v = req.headers[n]; return Array.isArray(v) ? v.join(', ') : v ?? ''; };
          try {
            observer({
              startedAt, durationMs: performance.now() - t0, method: req.method ?? 'GET',
              path: q < 0 ? url : url.slice(0, q), query: q < 0 ? '' : url.slice(q + 1),
              clientIp: req.socket.remoteAddress ?? '', status: res.headersSent ? res.statusCode : 0,
              bytes: Number(res.getHeader('content-length') ?? 0) || 0,
              userAgent: header('user-agent'), referer: header('referer'),
              secure: Boolean((req.socket as { encrypted?: boolean }).encrypted),
            });
          } catch (err) {
            this.log.debug({ err: (err as Error).message }, 'servlet request observer failed');
          }
        }
      };
      if (res.writableFinished || res.destroyed) done(); else res.once('close', done);
    }
  }

  private errorReply(err: unknown, req: ServletRequest): Reply {
    if (err instanceof BodyAbortedError) return { status: 0 };
    if (err instanceof HttpError) {
      return {
        status: err.status,
        headers: { 'content-type': 'application/json', ...err.headers },
        body: JSON.stringify({ error: ERROR_NAMES[err.status] ?? 'error', error_description: err.message }),
        close: err instanceof BodyTooLargeError,
      };
    }
    this.log.error({ err: (err as Error)?.stack ?? String(err), method: req.method, path: req.path, traceId: req.traceId }, 'servlet handler failed');
    return { status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'server_error', error_description: 'internal error; see the server log', trace_id: req.traceId }) };
  }

  private write(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply, c: ServletConnectorOptions): void {
    if (res.headersSent || res.destroyed) return;
    const body = reply.body === undefined ? undefined : typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
    res.statusCode = reply.status;
    if (c.serverHeader) res.setHeader('server', c.serverHeader);
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v as string | number | string[]);
    if (!res.hasHeader('content-length')) res.setHeader('content-length', body?.length ?? 0);
    const close = reply.close === true || this.stopping;
    if (close) res.setHeader('connection', 'close');
    if (reply.close) {
      // The rest of an over-long body is not read: discard what arrives for a moment so that the client
      // reads the answer instead of a reset, then drop the connection.
      res.once('finish', () => {
        req.resume();
        const t = setTimeout(() => req.socket.destroy(), 1000);
        t.unref();
        req.socket.once('close', () => clearTimeout(t));
      });
    }
    if (req.method === 'HEAD' || body === undefined) res.end(); else res.end(body);
  }
}

function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  const raw = q < 0 ? u : u.slice(0, q);
  try { return decodeURIComponent(raw); } catch { return raw; }
}
