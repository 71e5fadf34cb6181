import t from 'tap';
import crypto from 'node:crypto';
import type net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { rawBackend, onRequestHead, onEachRequestHead, request } from '../helpers/backends.js';

// Content-Length bodies are read past the parser (transport/sender/backend-connection.ts): these are the
// framings where counting bytes could go wrong.

/** A keep-alive backend on raw sockets: `answer` writes the response to each request, by path. */
function keepAliveBackend(answer: (path: string, sock: net.Socket) => void | Promise<void>) {
  return (sock: net.Socket): void => {
    const next = (): void => onRequestHead(sock, (head) => {
      const path = head.split(' ')[1] ?? '/';
      void Promise.resolve(answer(path, sock)).then(next);
    });
    next();
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ONE_THREAD = { passthru_http: { io_threads_per_reactor: 1 } };

t.test('a Content-Length body arrives whole however the backend splits it, and the connection is kept', async (t) => {
  const body = crypto.randomBytes(200_000);
  const be = await rawBackend(t, keepAliveBackend(async (path, sock) => {
    const head = `HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n`;
    if (path.endsWith('/together')) { sock.write(Buffer.concat([Buffer.from(head), body])); return; }
    if (path.endsWith('/head-alone')) { sock.write(head); await pause(20); sock.write(body); return; }
    if (path.endsWith('/split-head')) { sock.write(head.slice(0, 20)); await pause(20); sock.write(Buffer.concat([Buffer.from(head.slice(20)), body.subarray(0, 7)])); await pause(20); sock.write(body.subarray(7)); return; }
    // Small pieces, each its own read at the gateway.
    sock.write(head);
    for (let i = 0; i < body.length; i += 50_000) { await pause(10); sock.write(body.subarray(i, i + 50_000)); }
  }));
  const s = await startSluice(t, ONE_THREAD, { [`${API_DIR}/f.toml`]: apiToml({ name: 'Framing', context: '/f', production: be.url }) });
  for (const p of ['together', 'head-alone', 'split-head', 'pieces', 'together']) {
    const r = await request(s.url(`/f/1.0.0/${p}`));
    t.equal(r.status, 200, `${p}: 200`);
    t.notOk(r.aborted, `${p}: complete`);
    t.ok(r.body.equals(body), `${p}: the body byte for byte`);
  }
  t.equal(be.connections(), 1, 'every call used the one keep-alive backend connection');
});

t.test('bytes past the Content-Length are not passed on, and that connection is not used again', async (t) => {
  const be = await rawBackend(t, keepAliveBackend((path, sock) => {
    if (path.endsWith('/extra')) sock.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhelloEXTRA BYTES');
    else sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  }));
  const s = await startSluice(t, ONE_THREAD, { [`${API_DIR}/f.toml`]: apiToml({ name: 'Framing', context: '/f', production: be.url }) });
  const r = await request(s.url('/f/1.0.0/extra'));
  t.equal(r.status, 200);
  t.equal(r.text, 'hello', 'exactly Content-Length bytes');
  t.notOk(r.aborted, 'the client response is complete');
  const next = await request(s.url('/f/1.0.0/next'));
  t.equal(next.text, 'ok', 'the next call is answered');
  t.equal(be.connections(), 2, 'the next call went over a new backend connection');
});

t.test('interim 1xx responses, 304 and 204 with a Content-Length: no body is read for them, the connection stays usable', async (t) => {
  const be = await rawBackend(t, keepAliveBackend((path, sock) => {
    if (path.endsWith('/interim')) sock.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc');
    else if (path.endsWith('/not-modified')) sock.write('HTTP/1.1 304 Not Modified\r\netag: "x"\r\ncontent-length: 100\r\n\r\n');
    else if (path.endsWith('/no-content')) sock.write('HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n');
    else sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  }));
  const s = await startSluice(t, ONE_THREAD, { [`${API_DIR}/f.toml`]: apiToml({ name: 'Framing', context: '/f', production: be.url }) });
  const interim = await request(s.url('/f/1.0.0/interim'));
  t.equal(interim.status, 200);
  t.equal(interim.text, 'abc', 'the final response after two interim ones');
  const nm = await request(s.url('/f/1.0.0/not-modified'));
  t.equal(nm.status, 304);
  t.equal(nm.body.length, 0, '304: no body');
  const nc = await request(s.url('/f/1.0.0/no-content'));
  t.equal(nc.status, 204);
  const ok = await request(s.url('/f/1.0.0/ok'));
  t.equal(ok.text, 'ok', 'the connection still parses the next response from its start');
  t.equal(be.connections(), 1, 'one backend connection for all of them');
});

t.test('slow readers at once: each gets its own bytes (a held chunk is not a view of the shared read buffer)', async (t) => {
  const bodies = [0, 1, 2].map(() => crypto.randomBytes(16 * 1024 * 1024));
  const be = await rawBackend(t, keepAliveBackend((path, sock) => new Promise<void>((done) => {
    const body = bodies[Number(path.slice(-1))]!;
    sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`);
    if (sock.write(body)) done(); else sock.once('drain', () => done());
  })));
  const s = await startSluice(t, ONE_THREAD, { [`${API_DIR}/f.toml`]: apiToml({ name: 'Framing', context: '/f', production: be.url }) });
  const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  const { default: http } = await import('node:http');
  const slowGet = (i: number) => new Promise<string>((resolve, reject) => {
    http.get(s.url(`/f/1.0.0/${i}`), { agent: false }, (res) => {
      const h = crypto.createHash('sha256');
      res.on('data', (c: Buffer) => { h.update(c); res.pause(); setTimeout(() => res.resume(), 1 + i); });
      res.on('end', () => resolve(h.digest('hex')));
    }).on('error', reject);
  });
  const got = await Promise.all([0, 1, 2].map(slowGet));
  for (let i = 0; i < 3; i++) t.equal(got[i], sha(bodies[i]!), `reader ${i}: its body whole`);
});

t.test('one keep-alive backend connection answers with a length, chunked, a length split across reads, then chunked: each response ends', async (t) => {
  // After a response with a Content-Length its body is counted past the parser, which is told nothing of the
  // message's end (backend-connection.ts): the next response on the connection, whatever its framing, must
  // still be seen to end.
  const answers = [
    ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirst'],
    ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n6\r\nsecond\r\n0\r\n\r\n'],
    ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nth', 'ird'],
    ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', '6\r\nfourth\r\n0\r\n\r\n'],
  ];
  const be = await rawBackend(t, (sock) => onEachRequestHead(sock, (n) => {
    const parts = answers[n % answers.length]!;
    sock.write(parts[0]!);
    if (parts[1] !== undefined) setTimeout(() => sock.write(parts[1]!), 30);
  }));
  const s = await startSluice(t, {}, { [`${API_DIR}/alt.toml`]: apiToml({ name: 'alt', context: '/alt', production: be.url }) });
  const bodies: string[] = [];
  for (let i = 0; i < 8; i++) {
    const r = await request(s.url('/alt/1.0.0/x'), { timeoutMs: 3000 });
    t.equal(r.status, 200, `call ${i + 1}`);
    bodies.push(r.text);
  }
  t.same(bodies, ['first', 'second', 'third', 'fourth', 'first', 'second', 'third', 'fourth']);
  t.equal(be.connections(), 1, 'all on one connection');
});
