import t from 'tap';
import net from 'node:net';
import { ServletServer, json, HttpError } from '../../engine/servlet/index.js';
import { captureLogger, request } from '../fixtures/keymanager-harness.js';

async function server(t: Tap, opts: Partial<ConstructorParameters<typeof ServletServer>[0]> = {}) {
  const logs = captureLogger();
  const s = new ServletServer({ log: logs.log, host: '127.0.0.1', http: { port: 0, ...(opts.http ?? {}) }, ...opts });
  t.teardown(() => s.stop());
  return { s, logs };
}
type Tap = { teardown(fn: () => unknown): void };

t.test('router: exact and prefix routes, 404, 405 with Allow, HEAD falls back to GET', async (t) => {
  const { s } = await server(t);
  s.route('GET', '/health', () => json(200, { ok: true }));
  s.route('POST', '/api/*', (req) => json(200, { path: req.path, q: req.query.get('q') }));
  s.route('GET', '/api/special', () => json(200, { special: true }));
  const { http } = await s.start();
  const base = `http://127.0.0.1:${http}`;
  t.same((await request(`${base}/health`)).json, { ok: true });
  t.same((await request(`${base}/api/x/y?q=1`, { method: 'POST' })).json, { path: '/api/x/y', q: '1' });
  t.same((await request(`${base}/api`, { method: 'POST' })).json, { path: '/api', q: null });
  t.same((await request(`${base}/api/special`)).json, { special: true }, 'exact wins over prefix');
  t.equal((await request(`${base}/apix`, { method: 'POST' })).status, 404);
  const nf = await request(`${base}/nothing`);
  t.equal(nf.status, 404);
  t.equal(nf.json.error, 'not_found');
  const na = await request(`${base}/health`, { method: 'DELETE' });
  t.equal(na.status, 405);
  t.equal(na.headers['allow'], 'GET, HEAD');
  const head = await request(`${base}/health`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.text, '');
  t.throws(() => s.route('GET', '/health', () => json(200, {})), /already defined/);
  s.route('GET', '/late', () => json(200, { late: true }));
  t.same((await request(`${base}/late`)).json, { late: true }, 'routes can be mounted while running');
});

t.test('handlers: HttpError answers with its status, anything else is a logged 500; the process survives', async (t) => {
  const { s, logs } = await server(t);
  s.route('GET', '/teapot', () => { throw new HttpError(418, 'short and stout'); });
  s.route('GET', '/bug', () => { throw new Error('boom'); });
  s.route('GET', '/async-bug', async () => { await new Promise((r) => setTimeout(r, 5)); throw new TypeError('async boom'); });
  const { http } = await s.start();
  const base = `http://127.0.0.1:${http}`;
  const tea = await request(`${base}/teapot`);
  t.equal(tea.status, 418);
  t.same(tea.json, { error: 'error', error_description: 'short and stout' });
  for (const p of ['/bug', '/async-bug']) {
    const r = await request(`${base}${p}`);
    t.equal(r.status, 500);
    t.equal(r.json.error, 'server_error');
    t.type(r.json.trace_id, 'string');
  }
  t.ok(logs.lines.some((l) => String(l['err']).includes('async boom')));
});

t.test('bodies: JSON and form parsing, bad JSON, bad content type, a body over the limit', async (t) => {
  const { s } = await server(t, { maxBodySize: 1024 });
  s.route('POST', '/json', async (req) => json(200, { got: await req.json() }));
  s.route('POST', '/form', async (req) => json(200, { a: (await req.form()).get('a') }));
  s.route('POST', '/big', async (req) => json(200, { n: (await req.body()).length }), { maxBodySize: 4096 });
  const { http } = await s.start();
  const base = `http://127.0.0.1:${http}`;
  t.same((await request(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"x":[1]}' })).json, { got: { x: [1] } });
  t.same((await request(`${base}/form`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b+c%21' })).json, { a: 'b c!' });
  const bad = await request(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":' });
  t.equal(bad.status, 400);
  t.match(bad.json.error_description, /malformed JSON/);
  const ct = await request(`${base}/json`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
  t.equal(ct.status, 415);
  const big = await request(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ s: 'x'.repeat(2000) }) });
  t.equal(big.status, 413, 'declared Content-Length over the limit');
  t.equal(big.headers['connection'], 'close');
  t.equal((await request(`${base}/big`, { method: 'POST', body: 'x'.repeat(3000) })).json.n, 3000, 'a route may raise its limit');
  // A chunked body (no Content-Length) over the limit.
  const chunked = await new Promise<string>((resolve) => {
    const sock = net.connect(http!, '127.0.0.1', () => {
      sock.write('POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = 'x'.repeat(800);
      sock.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      sock.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    let got = '';
    sock.on('data', (d) => { got += d.toString(); });
    sock.on('close', () => resolve(got));
    sock.on('error', () => resolve(got));
  });
  t.match(chunked, /^HTTP\/1\.1 413/);
});

t.test('slow clients: a head that never ends is cut at headers_timeout; others are served meanwhile', async (t) => {
  const { s } = await server(t, { headersTimeout: 500 });
  s.route('GET', '/x', () => json(200, { ok: true }));
  const { http } = await s.start();
  const started = Date.now();
  const slow = new Promise<{ got: string; ms: number }>((resolve) => {
    const sock = net.connect(http!, '127.0.0.1', () => sock.write('GET /x HTTP/1.1\r\nHost: x\r\n'));
    let got = '';
    sock.on('data', (d) => { got += d.toString(); });
    sock.on('close', () => resolve({ got, ms: Date.now() - started }));
    sock.on('error', () => resolve({ got, ms: Date.now() - started }));
  });
  t.equal((await request(`http://127.0.0.1:${http}/x`)).status, 200, 'served while the slow client hangs');
  const r = await slow;
  t.ok(r.ms < 4000, `closed after ${r.ms} ms`);
  t.match(r.got, /^HTTP\/1\.1 408|^$/);
});

t.test('keep-alive: many requests on one connection', async (t) => {
  const { s } = await server(t);
  let n = 0;
  s.route('GET', '/n', () => json(200, { n: ++n }));
  const { http } = await s.start();
  const got = await new Promise<string>((resolve) => {
    const sock = net.connect(http!, '127.0.0.1', () => sock.write('GET /n HTTP/1.1\r\nHost: x\r\n\r\nGET /n HTTP/1.1\r\nHost: x\r\n\r\nGET /n HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    let text = '';
    sock.on('data', (d) => { text += d.toString(); });
    sock.on('close', () => resolve(text));
  });
  t.equal(got.match(/HTTP\/1\.1 200/g)?.length, 3);
  t.equal(n, 3);
});

t.test('graceful stop: a request in flight finishes, new connections are refused', async (t) => {
  const { s } = await server(t, { gracefulStopTimeout: 5000 });
  s.route('GET', '/slow', async () => { await new Promise((r) => setTimeout(r, 300)); return json(200, { done: true }); });
  const { http } = await s.start();
  const inflight = request(`http://127.0.0.1:${http}/slow`);
  await new Promise((r) => setTimeout(r, 50));
  const stopping = s.stop();
  await new Promise((r) => setTimeout(r, 20));
  const refused = await request(`http://127.0.0.1:${http}/slow`);
  t.equal(refused.status, 0, 'no new connections');
  const r = await inflight;
  t.equal(r.status, 200);
  t.same(r.json, { done: true });
  t.equal(r.headers['connection'], 'close');
  await stopping;
});

t.test('a port in use: start fails with a clear message', async (t) => {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => blocker.close(() => r())));
  const port = (blocker.address() as net.AddressInfo).port;
  const logs = captureLogger();
  const s = new ServletServer({ log: logs.log, host: '127.0.0.1', http: { port } });
  await t.rejects(s.start(), /servlet HTTP port 127\.0\.0\.1:\d+ cannot be opened: address in use/);
});
