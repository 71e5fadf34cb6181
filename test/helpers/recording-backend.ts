import http from 'node:http';
import net from 'node:net';

/** What a recording backend saw of one request. */
export interface Recorded {
  /** The request line, e.g. `GET /base/admin HTTP/1.1`. */
  readonly line: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

export interface RecordingBackend {
  readonly port: number;
  readonly url: string;
  /** Every request that reached the backend, in order. */
  readonly seen: Recorded[];
  /** Framing errors the backend's strict parser met: anything here means Sluice forwarded malformed bytes. */
  readonly malformed: string[];
  /** Connections the gateway opened to the backend. */
  connections(): number;
  reset(): void;
}

/**
 * A backend on 127.0.0.1 that records every request it receives (line, headers, body) and answers `200` with
 * `ok` (after `answerAfterMs` of the request line, when given). It parses with Node's strict parser:
 * framing it cannot parse is recorded in `malformed`, so a test can say that nothing malformed got past the
 * gateway.
 */
export async function recordingBackend(t: { teardown(fn: () => unknown): void }, opts: { answerAfterMs?: (line: string) => number } = {}): Promise<RecordingBackend> {
  const seen: Recorded[] = [];
  const malformed: string[] = [];
  let connections = 0;
  // Heads up to 64 KiB: what the gateway forwards at its own limits, with its X-Forwarded-* added, must fit.
  const server = http.createServer({ keepAliveTimeout: 60000, requestTimeout: 0, maxHeaderSize: 65536 }, (req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const line = `${req.method} ${req.url} HTTP/${req.httpVersion}`;
      seen.push({ line, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(parts) });
      const answer = (): void => { res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }); res.end('ok'); };
      const after = opts.answerAfterMs?.(line) ?? 0;
      if (after > 0) setTimeout(answer, after); else answer();
    });
    // A request the gateway gave up mid-body (the client's framing broke after the head) ends with the
    // connection: incomplete, never malformed. Anything else is recorded.
    req.on('error', (err: Error & { code?: string }) => { if (err.code !== 'ECONNRESET') malformed.push(`request stream: ${err.message}`); });
  });
  server.on('connection', () => { connections++; });
  server.on('clientError', (err: Error & { code?: string }, socket: net.Socket) => {
    // A connection the gateway closed mid-request (the client left, a refused body) is not malformed framing.
    if (err.code !== 'ECONNRESET' && err.code !== 'HPE_INVALID_EOF_STATE') malformed.push(`${err.code ?? ''} ${err.message}`);
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return {
    port, url: `http://127.0.0.1:${port}`, seen, malformed,
    connections: () => connections,
    reset() { seen.length = 0; malformed.length = 0; },
  };
}

/** What a raw client got back: the bytes, the statuses of the responses in them, whether the server closed. */
export interface RawReply {
  readonly text: string;
  readonly statuses: number[];
  readonly closed: boolean;
}

/**
 * Sends raw bytes (one write, or several with a pause between them) and collects what comes back until the
 * server closes, `responses` complete responses have arrived (and a moment passed with nothing more), or
 * `ms` pass.
 */
export function rawRequest(port: number, chunks: readonly Buffer[], responses: number, ms = 4000, finAfterMs = -1): Promise<RawReply> {
  // Answers to HEAD carry a Content-Length but no body: the walk must know which answers they are.
  const heads = headAnswers(Buffer.concat(chunks).toString('latin1'));
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    let done = false;
    let quiet: NodeJS.Timeout | null = null;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (quiet) clearTimeout(quiet);
      s.destroy();
      resolve({ text, statuses: statusesOf(text, heads), closed });
    };
    const timer = setTimeout(finish, ms);
    s.on('connect', async () => {
      for (let i = 0; i < chunks.length; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 30));
        if (!s.destroyed) s.write(chunks[i]!);
      }
      // A client that sends FIN when no complete answer came for a while (an incomplete request is answered then).
      if (finAfterMs === 0) s.end();
      else if (finAfterMs > 0) setTimeout(() => { if (!s.destroyed && completeResponses(text, heads) < responses) s.end(); }, finAfterMs);
    });
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (quiet) clearTimeout(quiet);
      if (completeResponses(text, heads) >= responses) quiet = setTimeout(finish, 150);
    });
    s.on('error', () => {});
    s.on('close', () => { closed = true; finish(); });
  });
}

/** The statuses of the responses in `text`, walked one after the other by their Content-Length (1xx skipped). */
export function statusesOf(text: string, heads: ReadonlySet<number> = new Set()): number[] {
  const out: number[] = [];
  walk(text, heads, (status) => { out.push(status); });
  return out;
}

/** Which answers (by position) belong to HEAD requests, from the request lines in what was sent. */
function headAnswers(sent: string): Set<number> {
  const out = new Set<number>();
  let i = 0;
  for (const m of sent.matchAll(/(?:^|\n)([A-Z]+) [^ \r\n]+ HTTP\/1\.[01]\r\n/g)) { if (m[1] === 'HEAD') out.add(i); i++; }
  return out;
}

/**
 * Walks the responses in `text`: `seen` gets each final response's status once its head is there; returns
 * how many of them are complete (by Content-Length; a chunked or close-delimited body counts as complete).
 */
function walk(text: string, heads: ReadonlySet<number>, seen: (status: number) => void): number {
  let n = 0;
  let at = 0;
  for (;;) {
    if (!text.startsWith('HTTP/1.', at)) return n;
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) return n;
    const head = text.slice(at, end);
    const status = Number(head.slice(9, 12));
    if (status === 100) { at = end + 4; continue; }
    seen(status);
    const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
    const noBody = heads.has(n) || status === 204 || status === 304;
    const bodyEnd = end + 4 + (cl && !noBody ? Number(cl[1]) : 0);
    if (text.length < bodyEnd) return n;
    n++;
    if (!cl && !noBody) return n;
    at = bodyEnd;
  }
}

function completeResponses(text: string, heads: ReadonlySet<number>): number {
  return walk(text, heads, () => {});
}
