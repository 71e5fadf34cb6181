import http from 'node:http';
import net from 'node:net';
import crypto from 'node:crypto';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly bodySha: string;
  readonly bodyLength: number;
}

export interface EchoBackend {
  readonly port: number;
  readonly url: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real backend on 127.0.0.1 that answers every request with a JSON description of what it received
 * (method, url, headers, body hash and length), unless `handle` answers first.
 */
export async function echoBackend(t: { teardown(fn: () => unknown): void }, handle?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean): Promise<EchoBackend> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const h = crypto.createHash('sha256');
    let n = 0;
    req.on('data', (c: Buffer) => { h.update(c); n += c.length; });
    req.on('end', () => {
      const s: SeenRequest = { method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, bodySha: h.digest('hex'), bodyLength: n };
      seen.push(s);
      if (handle && handle(req, res)) return;
      res.writeHead(200, { 'content-type': 'application/json', 'x-backend': 'echo' });
      res.end(JSON.stringify(s));
    });
  });
  server.keepAliveTimeout = 60000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  t.teardown(close);
  return { port, url: `http://127.0.0.1:${port}`, seen, close };
}

/** A backend written by hand on raw sockets, for misbehaviour (resets, garbage, silence). */
export async function rawBackend(t: { teardown(fn: () => unknown): void }, onConnection: (s: net.Socket) => void): Promise<{ port: number; url: string; connections: () => number }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => { count++; sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}); onConnection(s); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  t.teardown(() => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }));
  return { port, url: `http://127.0.0.1:${port}`, connections: () => count };
}

/** Reads one HTTP request head from a raw socket, then calls `then` with it and the body bytes read with it. */
export function onRequestHead(s: net.Socket, then: (head: string, rest: Buffer) => void): void {
  let buf = Buffer.alloc(0);
  const onData = (d: Buffer): void => {
    buf = Buffer.concat([buf, d]);
    const end = buf.indexOf('\r\n\r\n');
    if (end >= 0) { s.removeListener('data', onData); then(buf.subarray(0, end).toString('latin1'), buf.subarray(end + 4)); }
  };
  s.on('data', onData);
}

/**
 * Calls `each` for every request head a raw socket reads (requests without bodies, one after another on a
 * keep-alive connection), with the head's index on the connection and its request line's method and target.
 */
export function onEachRequestHead(s: net.Socket, each: (index: number, method: string, target: string) => void): void {
  let buf = '';
  let index = 0;
  s.on('data', (d: Buffer) => {
    buf += d.toString('latin1');
    for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
      const [method = '', target = ''] = buf.slice(0, buf.indexOf(' HTTP/')).split(' ');
      buf = buf.slice(end + 4);
      each(index++, method, target);
    }
  });
}

/**
 * A raw backend's answer to each request head on a connection, by its path and the path that connection carried
 * before it (null: the connection's first): the bytes to write (a string as latin1), 'end' to end the connection
 * unanswered, or null to say nothing.
 */
export function answerEachByPath(s: net.Socket, answer: (path: string, before: string | null) => string | 'end' | null): void {
  let before: string | null = null;
  onEachRequestHead(s, (_index, _method, path) => {
    const a = answer(path, before);
    if (a === 'end') s.end();
    else if (a !== null) s.write(a, 'latin1');
    before = path;
  });
}

/**
 * A good response whose body is `prime`, framed by Content-Length (`prime-cl`) or chunked (`prime-chunked`), to put
 * a backend connection's parser in that state before a case. `n` makes each one's bytes its own: a response that
 * repeated the one before byte for byte would be replayed without the parser (kept-response.ts).
 */
export function primeResponse(kind: 'prime-cl' | 'prime-chunked', n: number | string): string {
  return kind === 'prime-cl'
    ? `HTTP/1.1 200 OK\r\nX-Prime: ${n}\r\nContent-Length: 5\r\n\r\nprime`
    : `HTTP/1.1 200 OK\r\nX-Prime: ${n}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nprime\r\n0\r\n\r\n`;
}

export interface ClientResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
  readonly text: string;
  readonly json: unknown;
  /** The response ended early (connection closed mid-body). */
  readonly aborted: boolean;
  readonly error?: string;
}

/** One request with a fresh connection; never throws (a failure is in `error`). */
export function request(url: string, o: { method?: string; headers?: Record<string, string | string[]>; body?: Buffer | string; timeoutMs?: number } = {}): Promise<ClientResponse> {
  return new Promise((resolve) => {
    const r = http.request(url, { method: o.method ?? 'GET', headers: o.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let aborted = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => { aborted = true; });
      res.on('error', () => { aborted = true; });
      res.on('close', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body, text, json, aborted: aborted || !res.complete });
      });
    });
    r.on('error', (e) => resolve({ status: 0, headers: {}, rawHeaders: [], body: Buffer.alloc(0), text: '', json: undefined, aborted: true, error: e.message }));
    r.setTimeout(o.timeoutMs ?? 20000, () => r.destroy(new Error('client timeout')));
    r.end(o.body);
  });
}

/** Writes raw bytes to a port and collects what comes back until the peer closes or `ms` pass. */
export function rawExchange(port: number, bytes: string | Buffer, ms = 1500): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
    let text = '';
    let closed = false;
    s.on('data', (d) => { text += d.toString('latin1'); });
    s.on('error', () => {});
    s.on('close', () => { closed = true; finish(); });
    const timer = setTimeout(finish, ms);
    let done = false;
    function finish(): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ text, closed });
    }
  });
}

export function faultOf(r: ClientResponse): { code: number; message: string; description: string; type: string } | undefined {
  const j = r.json as { fault?: { code: number; message: string; description: string; type: string } } | undefined;
  return j?.fault;
}
