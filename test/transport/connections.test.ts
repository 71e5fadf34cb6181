import t from 'tap';
import net from 'node:net';
import http from 'node:http';
import crypto from 'node:crypto';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, rawBackend, onRequestHead, request, faultOf, type SeenRequest } from '../helpers/backends.js';

t.test('backend keep-alive: connections are reused; Connection: close from the backend closes only that connection', async (t) => {
  let conns = 0;
  let served = 0;
  const be = await echoBackend(t, (_req, res) => {
    served++;
    if (served === 3) res.setHeader('connection', 'close');
    res.end('{}');
    return true;
  });
  const srv = (be as unknown as { port: number });
  void srv;
  const s = await startSluice(t, {}, { [`${API_DIR}/ka.toml`]: apiToml({ name: 'Ka', context: '/ka', production: be.url }) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const get = (p: string) => new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http.get(s.url(p), { agent }, (res) => { res.resume(); res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers })); }).on('error', reject);
  });
  for (let i = 0; i < 5; i++) {
    const r = await get(`/ka/1.0.0/${i}`);
    t.equal(r.status, 200);
    t.not(r.headers.connection, 'close', 'the client connection stays open when the backend closes');
  }
  void conns;
  t.equal(be.seen.length, 5);
});

t.test('disable_connection_keepalive: every backend call on its own connection', async (t) => {
  const seenPorts = new Set<number>();
  const be = await echoBackend(t, (req, res) => { seenPorts.add(req.socket.remotePort!); res.end(JSON.stringify({ connection: req.headers.connection })); return true; });
  const s = await startSluice(t, { passthru_http: { disable_connection_keepalive: true } }, { [`${API_DIR}/ka.toml`]: apiToml({ name: 'Ka', context: '/ka', production: be.url }) });
  for (let i = 0; i < 4; i++) {
    const r = await request(s.url('/ka/1.0.0/x'));
    t.same(r.json, { connection: 'close' });
  }
  t.equal(seenPorts.size, 4, 'four connections for four calls');
});

t.test('a client Connection: close ends the client connection after the response', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const sock = net.connect(s.home.ports.http, '127.0.0.1');
  let text = '';
  sock.on('data', (d) => { text += d; });
  const closed = new Promise<void>((r) => sock.on('close', () => r()));
  sock.write('GET /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  await closed;
  t.match(text, /^HTTP\/1\.1 200/);
  t.match(text, /"x-forwarded-for"/, 'the backend answered');
  t.notMatch(text, /"connection"/, 'Connection is hop-by-hop: the backend did not see it');
});

t.test('Expect: 100-continue is answered by the gateway; the body then flows', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const body = crypto.randomBytes(200000);
  const r = await new Promise<{ continued: boolean; seen: SeenRequest }>((resolve, reject) => {
    let continued = false;
    const req = http.request(s.url('/echo/1.0.0/up'), { method: 'POST', agent: false, headers: { expect: '100-continue', 'content-length': String(body.length) } }, (res) => {
      let t2 = '';
      res.on('data', (c) => { t2 += c; });
      res.on('end', () => resolve({ continued, seen: JSON.parse(t2) as SeenRequest }));
    });
    req.on('continue', () => { continued = true; req.end(body); });
    req.on('error', reject);
  });
  t.ok(r.continued, '100 Continue came');
  t.equal(r.seen.bodySha, crypto.createHash('sha256').update(body).digest('hex'));
  t.equal(r.seen.headers.expect, undefined, 'the expectation was met at the gateway, not forwarded');
});

t.test('a slow client and a slow backend: large bodies stream whole with back-pressure both ways', async (t) => {
  const size = 24 * 1024 * 1024;
  const payload = crypto.randomBytes(1024 * 1024);
  const want = crypto.createHash('sha256');
  for (let i = 0; i < size / payload.length; i++) want.update(payload);
  const wantSha = want.digest('hex');
  let backendWaitedForDrain = false;
  const be = await echoBackend(t, (req, res) => {
    if (req.url !== '/down') return false;
    res.writeHead(200, { 'content-length': String(size) });
    let i = 0;
    const pump = (): void => {
      while (i < size / payload.length) { i++; if (!res.write(payload)) { backendWaitedForDrain = true; res.once('drain', pump); return; } }
      res.end();
    };
    pump();
    return true;
  });
  const s = await startSluice(t, {}, { [`${API_DIR}/big.toml`]: apiToml({ name: 'Big', context: '/big', production: be.url }) });
  // Download through a reader that pauses often.
  const got = await new Promise<string>((resolve, reject) => {
    http.get(s.url('/big/1.0.0/down'), { agent: false }, (res) => {
      const h = crypto.createHash('sha256');
      res.on('data', (c: Buffer) => { h.update(c); res.pause(); setTimeout(() => res.resume(), 1); });
      res.on('end', () => resolve(h.digest('hex')));
    }).on('error', reject);
  });
  t.equal(got, wantSha, 'a 24 MiB download through a slow reader arrives whole');
  t.ok(backendWaitedForDrain, 'the backend was made to wait (back-pressure reached it)');
  // Upload to a backend that reads slowly.
  const slow = await rawBackend(t, (sock) => onRequestHead(sock, (_head, rest) => {
    let n = rest.length;
    const h = crypto.createHash('sha256').update(rest);
    sock.on('data', (c: Buffer) => {
      h.update(c); n += c.length; sock.pause(); setTimeout(() => sock.resume(), 1);
      if (n >= size) { const body = JSON.stringify({ sha: h.digest('hex'), n }); sock.end(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n${body}`); }
    });
  }));
  const s2 = await startSluice(t, {}, { [`${API_DIR}/up.toml`]: apiToml({ name: 'Up', context: '/up', production: slow.url }) });
  const big = Buffer.concat(Array.from({ length: size / payload.length }, () => payload));
  const r = await request(s2.url('/up/1.0.0/x'), { method: 'POST', body: big });
  if (!r.json) t.comment(`upload answer: ${r.status} ${r.error ?? ''} ${r.text.slice(0, 200)}`);
  t.same(r.json, { sha: wantSha, n: size }, 'a 24 MiB upload to a slow backend arrives whole');
});

t.test('synapse.global_timeout_interval: no complete response in time is 504, the late response is dropped', async (t) => {
  let late: http.ServerResponse | null = null;
  const be = await echoBackend(t, (_req, res) => { late = res; return true; });
  const s = await startSluice(t, { mediation: { 'synapse.global_timeout_interval': '1500ms' }, passthru_http: { 'http.socket.timeout': '60s' } },
    { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const r = await request(s.url('/slow/1.0.0/x'));
  t.equal(r.status, 504);
  t.equal(faultOf(r)?.code, 101507);
  await eventually(() => s.home.logs().some((l) => /synapse.global_timeout_interval/.test(String(l['msg']))), 'the warning');
  late!.end('{"late":true}');
  t.pass('the late response went nowhere');
});

t.test('max_open_connections: over the cap new connections wait, existing calls carry on', async (t) => {
  const held: http.ServerResponse[] = [];
  const be = await echoBackend(t, (_req, res) => { held.push(res); return true; });
  const s = await startSluice(t, { passthru_http: { max_open_connections: 2 } }, { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const a = request(s.url('/slow/1.0.0/a'));
  const b = request(s.url('/slow/1.0.0/b'));
  await eventually(() => held.length === 2, 'two calls in flight');
  await eventually(() => s.home.logs().some((l) => /max_open_connections reached/.test(String(l['msg']))), 'the log line');
  const c = await request(s.url('/slow/1.0.0/c'), { timeoutMs: 1000 });
  t.equal(c.status, 0, 'a third connection is not accepted now');
  for (const r of held.splice(0)) r.end('{}');
  t.equal((await a).status, 200);
  t.equal((await b).status, 200);
  await eventually(async () => { const d = request(s.url('/slow/1.0.0/d'), { timeoutMs: 3000 }); await eventually(() => held.length === 1, 'd at the backend', 3000).catch(() => {}); for (const r of held.splice(0)) r.end('{}'); return (await d).status === 200; }, 'accepting again');
});
