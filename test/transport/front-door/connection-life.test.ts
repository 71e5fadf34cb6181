import t from 'tap';
import net from 'node:net';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml, eventually } from '../../helpers/home.js';
import { recordingBackend, rawRequest } from '../../helpers/recording-backend.js';
import { rawBackend } from '../../helpers/backends.js';

// The life of a client connection at the front door: what is answered when bytes stop coming, when a
// client half-closes, pipelines, or is answered before its body was read; and the door's limits with keys
// set smaller than their defaults.

const GET = (p: string, extra = ''): Buffer => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: gw\r\n${extra}\r\n`, 'latin1');

async function gateway(t: Parameters<typeof startSluice>[0], conf: Record<string, unknown> = {}) {
  const be = await recordingBackend(t);
  const s = await startSluice(t, conf, { [`${API_DIR}/lc.toml`]: apiToml({ name: 'Lc', context: '/lc', version: 'v1', production: `${be.url}/base` }) });
  return { be, s, port: s.home.ports.http };
}

t.test('a head that never completes (slowloris) is answered 408 and closed after client_header_timeout', async (t) => {
  const { be, port } = await gateway(t, { passthru_http: { client_header_timeout: '1s' } });
  const r = await rawRequest(port, [Buffer.from('GET /lc/v1/a HTTP/1.1\r\nHost: gw\r\nX-Slow: ')], 1, 6000);
  t.same(r.statuses, [408], '408 Request Timeout');
  t.match(r.text, /"code":408/, 'with a fault body');
  t.ok(r.closed, 'then the connection is closed');
  t.same(be.seen, [], 'nothing reached the backend');
});

t.test('a body that stops arriving is answered 408 after client_body_timeout and the backend request aborted', async (t) => {
  let backendClosed = false;
  const be = await rawBackend(t, (sock) => { sock.on('data', () => {}); sock.on('close', () => { backendClosed = true; }); });
  const s = await startSluice(t, { passthru_http: { client_body_timeout: '1s' } }, { [`${API_DIR}/up.toml`]: apiToml({ name: 'Up', context: '/up', production: be.url }) });
  const r = await rawRequest(s.home.ports.http, [Buffer.from('POST /up/1.0.0/a HTTP/1.1\r\nHost: gw\r\nContent-Length: 100\r\n\r\nonly part')], 1, 6000);
  t.same(r.statuses, [408], '408');
  t.ok(r.closed, 'closed');
  const until = Date.now() + 5000;
  while (!backendClosed && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
  t.ok(backendClosed, 'the backend connection carrying the incomplete request was closed');
});

t.test('an idle keep-alive connection is closed after client_keepalive_timeout; a busy one is not', async (t) => {
  const { port } = await gateway(t, { passthru_http: { client_keepalive_timeout: '1s' } });
  const c = net.connect(port, '127.0.0.1');
  let text = '';
  c.on('data', (d) => { text += d.toString('latin1'); });
  await new Promise((r) => c.once('connect', r));
  c.write(GET('/lc/v1/a'));
  const closed = await new Promise<boolean>((resolve) => {
    c.once('close', () => resolve(true));
    setTimeout(() => resolve(false), 6000);
  });
  t.match(text, /^HTTP\/1\.1 200/, 'answered');
  t.ok(closed, 'then closed when it stayed idle');
});

t.test('a client that closes its side while its call waits for the backend is gone: the call is canceled', async (t) => {
  let backendClosed = false;
  const be = await rawBackend(t, (sock) => { sock.on('data', () => {}); sock.on('close', () => { backendClosed = true; }); });
  const s = await startSluice(t, {}, { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const r = await rawRequest(s.home.ports.http, [GET('/slow/1.0.0/x')], 1, 3000, 300);
  t.same(r.statuses, [], 'no answer to a client that left');
  t.ok(r.closed, 'the connection closed');
  const until = Date.now() + 5000;
  while (!backendClosed && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
  t.ok(backendClosed, 'the backend exchange was released (its connection closed)');
  t.ok(await eventually(() => s.home.logs().some((l) => l['code'] === 101507), 'the 101507 log line', 5000), 'logged as 101507 (connection canceled)');
});

t.test('a client that half-closes inside a head gets 400, never a silent close', async (t) => {
  const { be, port } = await gateway(t);
  const r = await rawRequest(port, [Buffer.from('GET /lc/v1/x HTTP/1.1\r\nHost: g')], 1, 4000, 0);
  t.same(r.statuses, [400]);
  t.same(be.seen, []);
});

t.test('pipelined requests with bodies are answered in order, each body in its own backend request', async (t) => {
  const { be, port } = await gateway(t);
  const bytes = 'POST /lc/v1/a HTTP/1.1\r\nHost: gw\r\nContent-Length: 5\r\n\r\nhello'
    + 'PUT /lc/v1/b HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n000\r\n\r\n'
    + 'GET /lc/v1/c HTTP/1.1\r\nHost: gw\r\n\r\n';
  const r = await rawRequest(port, [Buffer.from(bytes)], 3);
  t.same(r.statuses, [200, 200, 200], 'three answers');
  t.notOk(r.closed, 'the connection stays open');
  t.same(be.seen.map((x) => x.line), ['POST /base/a HTTP/1.1', 'PUT /base/b HTTP/1.1', 'GET /base/c HTTP/1.1'], 'in order');
  t.same(be.seen.map((x) => x.body.toString()), ['hello', 'abc', ''], 'each body to its own request');
});

t.test('an answer given before the body was read reaches the client whole, then the connection closes', async (t) => {
  const { be, port } = await gateway(t);
  // No API at this path: 404 at once, while the client is still sending a large body.
  const c = net.connect(port, '127.0.0.1');
  let text = '';
  c.on('data', (d) => { text += d.toString('latin1'); });
  c.on('error', () => {});
  await new Promise((r) => c.once('connect', r));
  c.write('POST /nothing/v1/x HTTP/1.1\r\nHost: gw\r\nContent-Length: 4000000\r\n\r\n');
  const chunk = Buffer.alloc(65536, 120);
  for (let i = 0; i < 20 && !c.destroyed; i++) { c.write(chunk); await new Promise((r) => setTimeout(r, 5)); }
  await new Promise<void>((resolve) => { c.once('close', () => resolve()); setTimeout(resolve, 6000); });
  t.match(text, /^HTTP\/1\.1 404/, 'the answer arrived (not reset away)');
  t.match(text, /connection: close/i, 'saying the connection closes');
  t.match(text, /"code":404/, 'whole, with its fault body');
  t.same(be.seen, []);
});

t.test('absolute-form targets are routed by their path and forwarded in origin-form', async (t) => {
  const { be, port } = await gateway(t);
  const r = await rawRequest(port, [Buffer.from('GET http://gw:8280/lc/v1/abs?q=1 HTTP/1.1\r\nHost: gw:8280\r\n\r\n')], 1);
  t.same(r.statuses, [200]);
  t.same(be.seen.map((x) => x.line), ['GET /base/abs?q=1 HTTP/1.1']);
  t.equal(be.seen[0]?.headers['x-forwarded-host'], 'gw:8280');
});

t.test('OPTIONS * is answered by the gateway', async (t) => {
  const { be, port } = await gateway(t);
  const r = await rawRequest(port, [Buffer.from('OPTIONS * HTTP/1.1\r\nHost: gw\r\n\r\n')], 1);
  t.same(r.statuses, [200]);
  t.match(r.text, /\r\nallow: GET, HEAD, POST/i);
  t.same(be.seen, []);
});

t.test('HTTP/1.0 clients: answered, keep-alive when they ask for it, closed otherwise', async (t) => {
  const { port } = await gateway(t);
  let r = await rawRequest(port, [Buffer.from('GET /lc/v1/a HTTP/1.0\r\n\r\n')], 1);
  t.same(r.statuses, [200]);
  t.ok(r.closed, 'closed after the answer');
  r = await rawRequest(port, [Buffer.from('GET /lc/v1/a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /lc/v1/b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n')], 2);
  t.same(r.statuses, [200, 200], 'two answers on one connection');
  t.match(r.text, /connection: keep-alive/i);
});

t.test('the limits with keys set: target 414, header section and count 431, Bearer token 401 900901', async (t) => {
  const { be, port } = await gateway(t, { passthru_http: { max_request_target_bytes: 300, max_request_header_bytes: 2048, max_request_header_count: 10, max_bearer_token_bytes: 300 } });
  const long = '/lc/v1/' + 'a'.repeat(300);
  let r = await rawRequest(port, [GET(long)], 1);
  t.same(r.statuses, [414], 'a target one byte over: 414');
  r = await rawRequest(port, [GET('/lc/v1/' + 'a'.repeat(300 - 8))], 1);
  t.same(r.statuses, [200], 'a target at the limit passes');
  r = await rawRequest(port, [GET('/lc/v1/a', `X-Big: ${'b'.repeat(2100)}\r\n`)], 1);
  t.same(r.statuses, [431], 'a header section over the limit: 431');
  const many = Array.from({ length: 10 }, (_, i) => `X-H${i}: v\r\n`).join('');
  r = await rawRequest(port, [GET('/lc/v1/a', many)], 1);
  t.same(r.statuses, [431], 'eleven fields (Host and ten) over a limit of ten: 431');
  r = await rawRequest(port, [GET('/lc/v1/a', `Authorization: Bearer ${'t'.repeat(301)}\r\n`)], 1);
  t.same(r.statuses, [401], 'a Bearer token over the limit: 401');
  t.match(r.text, /"code":900901/);
  t.same(be.seen.map((x) => x.line), ['GET /base/' + 'a'.repeat(300 - 8) + ' HTTP/1.1'], 'only the request within the limits reached the backend');
});

t.test('a graceful stop closes idle keep-alive connections at once and ends busy ones after their answer', async (t) => {
  let release: (() => void) | null = null;
  const be = await rawBackend(t, (sock) => {
    sock.on('data', () => { release = () => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'); });
  });
  const s = await startSluice(t, {}, { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const port = s.home.ports.http;
  const idle = net.connect(port, '127.0.0.1');
  let idleText = '';
  idle.on('data', (d) => { idleText += d.toString('latin1'); });
  await new Promise((r) => idle.once('connect', r));
  idle.write('OPTIONS * HTTP/1.1\r\nHost: gw\r\n\r\n');
  while (!idleText.includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 20));
  const idleClosed = new Promise<void>((r) => idle.once('close', () => r()));
  const busy = net.connect(port, '127.0.0.1');
  let busyText = '';
  busy.on('data', (d) => { busyText += d.toString('latin1'); });
  await new Promise((r) => busy.once('connect', r));
  busy.write('GET /slow/1.0.0/x HTTP/1.1\r\nHost: gw\r\n\r\n');
  while (release === null) await new Promise((r) => setTimeout(r, 20));
  const stopped = s.stop();
  await idleClosed;
  t.pass('the idle connection was closed at once');
  release!();
  await stopped;
  t.match(busyText, /^HTTP\/1\.1 200/, 'the busy call was answered');
  t.match(busyText, /connection: close/i, 'with Connection: close');
});
