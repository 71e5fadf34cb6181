import net from 'node:net';
import type http from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import { apiHeadToml } from './home.js';
import { appToml, startSecured, type SecuredSluice } from './secured.js';

/** What a WebSocket backend saw of one handshake. */
export interface SeenHandshake {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface WsBackend {
  readonly port: number;
  readonly url: string;
  readonly server: WebSocketServer;
  readonly handshakes: SeenHandshake[];
  /** Messages the backend received, in order, as [data, isBinary]. */
  readonly received: [Buffer, boolean][];
  /** Sockets the backend holds open now (TCP, whatever their WebSocket state). */
  open(): number;
  /** The server-side WebSocket of the most recent connection. */
  last(): WebSocket | undefined;
  close(): Promise<void>;
}

/**
 * A real WebSocket backend on 127.0.0.1 (ws). By default it echoes every message as it came (text as text,
 * binary as binary); `onConnection` replaces that.
 */
export async function wsBackend(
  t: { teardown(fn: () => unknown): void },
  onConnection?: (ws: WebSocket, req: http.IncomingMessage) => void,
  options: { handleProtocols?: (protocols: Set<string>) => string | false; maxPayload?: number } = {},
): Promise<WsBackend> {
  const handshakes: SeenHandshake[] = [];
  const received: [Buffer, boolean][] = [];
  const sockets = new Set<net.Socket>();
  let last: WebSocket | undefined;
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', maxPayload: options.maxPayload ?? 64 * 1024 * 1024, ...(options.handleProtocols ? { handleProtocols: options.handleProtocols } : {}) });
  server.on('connection', (ws, req) => {
    const sock = req.socket;
    sockets.add(sock);
    sock.once('close', () => sockets.delete(sock));
    handshakes.push({ url: req.url ?? '', headers: req.headers });
    last = ws;
    ws.on('error', () => {});
    ws.on('message', (m: Buffer, isBinary: boolean) => received.push([m, isBinary]));
    if (onConnection) onConnection(ws, req);
    else ws.on('message', (m: Buffer, isBinary: boolean) => ws.send(m, { binary: isBinary }));
  });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  const close = (): Promise<void> => new Promise((r) => {
    for (const c of server.clients) c.terminate();
    for (const s of sockets) s.destroy();
    server.close(() => r());
  });
  t.teardown(close);
  return { port, url: `ws://127.0.0.1:${port}`, server, handshakes, received, open: () => sockets.size, last: () => last, close };
}

export type Opened = { ws: WebSocket; status?: undefined; body?: undefined; error?: undefined }
  | { ws?: undefined; status: number; body: string; headers: http.IncomingHttpHeaders; error?: undefined }
  | { ws?: undefined; status?: undefined; body?: undefined; error: string };

/** Opens a client WebSocket; resolves with the socket, or the HTTP answer that refused it, or the error. */
export function wsOpen(url: string, o: { token?: string; headers?: Record<string, string>; protocols?: string[]; rejectUnauthorized?: boolean } = {}): Promise<Opened> {
  return new Promise((resolve) => {
    const headers = { ...(o.token !== undefined ? { authorization: `Bearer ${o.token}` } : {}), ...(o.headers ?? {}) };
    const ws = new WebSocket(url, o.protocols ?? [], { headers, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024, rejectUnauthorized: o.rejectUnauthorized ?? true });
    ws.on('open', () => resolve({ ws }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body, headers: res.headers }); ws.terminate(); });
    });
    ws.on('error', (e) => resolve({ error: e.message }));
  });
}

/** The next `n` messages a client receives, as [data, isBinary]; rejects after `ms`. */
export function nextMessages(ws: WebSocket, n: number, ms = 10000): Promise<[Buffer, boolean][]> {
  return new Promise((resolve, reject) => {
    const out: [Buffer, boolean][] = [];
    const timer = setTimeout(() => { ws.off('message', on); reject(new Error(`${out.length} of ${n} messages within ${ms} ms`)); }, ms);
    const on = (m: Buffer, isBinary: boolean): void => {
      out.push([m, isBinary]);
      if (out.length === n) { clearTimeout(timer); ws.off('message', on); resolve(out); }
    };
    ws.on('message', on);
  });
}

/** Resolves with the close code and reason a client gets. */
export function closed(ws: WebSocket, ms = 10000): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    if (ws.readyState === WebSocket.CLOSED) { reject(new Error('already closed')); return; }
    const timer = setTimeout(() => reject(new Error(`not closed within ${ms} ms`)), ms);
    ws.once('close', (code: number, reason: Buffer) => { clearTimeout(timer); resolve({ code, reason: reason.toString() }); });
  });
}

/** A WS API file: one GET /* resource (the handshake), production (and sandbox) endpoints. */
export function wsApiToml(o: { name: string; context: string; production?: string; sandbox?: string; authType?: string; scopes?: string[]; extra?: string; version?: string }): string {
  return `${apiHeadToml({ ...o, type: 'WS' })}[[resources]]
verb = "GET"
uri_template = "/*"
auth_type = "${o.authType ?? 'Application & Application User'}"
throttling_policy = "Unlimited"
scopes = ${JSON.stringify(o.scopes ?? [])}
`;
}

/**
 * The common set-up of the WebSocket tests: a gateway with the WS API `Ws:1.0.0` on `/ws` in front of
 * `backendUrl`, the application `WsApp` (`ws-app` / `s`) subscribed to it, its token, and `open()` for a
 * session on the plain pass-through port.
 */
export async function startWsGateway(t: Tap.Test, backendUrl: string, o: { conf?: Record<string, unknown>; files?: Record<string, string> } = {}): Promise<{ s: SecuredSluice; token: string; open(): Promise<Opened> }> {
  const s = await startSecured(t, {
    ...o,
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: backendUrl }) },
    apps: { app: appToml({ name: 'WsApp', keys: [{ id: 'ws-app', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0' }] }) },
  });
  const token = (await s.token('ws-app', 's')).accessToken!;
  return { s, token, open: () => wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { token }) };
}
