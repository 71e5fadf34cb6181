import t from 'tap';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml } from '../../helpers/home.js';
import { recordingBackend, rawRequest } from '../../helpers/recording-backend.js';

// The second and later heads on a keep-alive connection get the answers the first one gets: a head that
// never completes is answered 408, a client that half-closes inside one is answered 400, a head split
// across reads is read whole and the trailers of a chunked body before it are not taken for its fields.
// The door learns that a later head has begun without a callback from the parser per message
// (client-connection.ts), so these are the cases that would break first.

const GET = (p: string, extra = ''): Buffer => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: gw\r\n${extra}\r\n`, 'latin1');

async function gateway(t: Parameters<typeof startSluice>[0], conf: Record<string, unknown> = {}) {
  const be = await recordingBackend(t);
  const s = await startSluice(t, conf, { [`${API_DIR}/lh.toml`]: apiToml({ name: 'Lh', context: '/lh', version: 'v1', production: `${be.url}/base` }) });
  return { be, port: s.home.ports.http };
}

t.test('a later head that never completes (slowloris) is answered 408 after client_header_timeout, then the close', async (t) => {
  const { be, port } = await gateway(t, { passthru_http: { client_header_timeout: '1s', client_keepalive_timeout: '60s' } });
  const r = await rawRequest(port, [GET('/lh/v1/a'), Buffer.from('GET /lh/v1/b HTTP/1.1\r\nHost: gw\r\nX-Slow: ')], 2, 6000);
  t.same(r.statuses, [200, 408], 'the first answered, the stalled one 408');
  t.match(r.text, /"code":408/, 'with a fault body');
  t.ok(r.closed, 'then the connection is closed');
  t.same(be.seen.map((x) => x.line), ['GET /base/a HTTP/1.1'], 'only the complete request reached the backend');
});

t.test('a stalled head after a request with a body is answered 408 too', async (t) => {
  const { be, port } = await gateway(t, { passthru_http: { client_header_timeout: '1s', client_keepalive_timeout: '60s' } });
  const post = Buffer.from('POST /lh/v1/p HTTP/1.1\r\nHost: gw\r\nContent-Length: 5\r\n\r\nhello');
  const r = await rawRequest(port, [post, GET('/lh/v1/g'), Buffer.from('GET /lh/v1/s HTTP/1.1\r\nHo')], 3, 6000);
  t.same(r.statuses, [200, 200, 408]);
  t.ok(r.closed);
  t.same(be.seen.map((x) => x.line), ['POST /base/p HTTP/1.1', 'GET /base/g HTTP/1.1']);
  t.equal(be.seen[0]?.body.toString(), 'hello');
});

t.test('a client that half-closes inside a later head gets 400, after the answer to the one before it', async (t) => {
  const { be, port } = await gateway(t);
  // FIN after the first answer came: the connection is idle but for the partial head.
  let r = await rawRequest(port, [GET('/lh/v1/a'), Buffer.from('GET /lh/v1/x HTTP/1.1\r\nHost: g')], 2, 4000, 400);
  t.same(r.statuses, [200, 400], 'FIN while idle but inside a head');
  // FIN at once: it may come while the first call still waits for its backend.
  r = await rawRequest(port, [GET('/lh/v1/b'), Buffer.from('GET /lh/v1/y HTTP/1.1\r\nHost: g')], 2, 4000, 0);
  t.same(r.statuses, [200, 400], 'FIN while the first call is answered');
  t.same(be.seen.map((x) => x.line), ['GET /base/a HTTP/1.1', 'GET /base/b HTTP/1.1'], 'the partial heads never reached the backend');
});

t.test('a later head that arrives in pieces is read whole', async (t) => {
  const { be, port } = await gateway(t);
  const fields = Array.from({ length: 40 }, (_, i) => `X-F${i}: v${i}\r\n`).join('');
  const second = GET('/lh/v1/two', fields).toString('latin1');
  const cut1 = second.indexOf('X-F5'), cut2 = second.indexOf('X-F37');
  const r = await rawRequest(port, [GET('/lh/v1/one'), Buffer.from(second.slice(0, cut1)), Buffer.from(second.slice(cut1, cut2)), Buffer.from(second.slice(cut2))], 2);
  t.same(r.statuses, [200, 200]);
  t.same(be.seen.map((x) => x.line), ['GET /base/one HTTP/1.1', 'GET /base/two HTTP/1.1']);
  const h = be.seen[1]?.headers ?? {};
  t.equal(h['x-f0'], 'v0');
  t.equal(h['x-f5'], 'v5');
  t.equal(h['x-f39'], 'v39', 'every field of the split head');
});

t.test('the trailers of a chunked body are not taken for fields of the head after it', async (t) => {
  const { be, port } = await gateway(t);
  const chunked = 'POST /lh/v1/c HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n';
  const next = 'GET /lh/v1/d HTTP/1.1\r\nHost: gw\r\nX-Next: n\r\n\r\n';
  // The trailer and the next head each in reads of their own, as the parser hands over parts then.
  const r = await rawRequest(port, [Buffer.from(chunked.slice(0, chunked.indexOf('X-Trailer'))), Buffer.from(chunked.slice(chunked.indexOf('X-Trailer'))),
    Buffer.from(next.slice(0, 20)), Buffer.from(next.slice(20))], 2);
  t.same(r.statuses, [200, 200]);
  t.same(be.seen.map((x) => x.line), ['POST /base/c HTTP/1.1', 'GET /base/d HTTP/1.1']);
  t.equal(be.seen[0]?.body.toString(), 'abc');
  t.equal(be.seen[1]?.headers['x-trailer'], undefined, 'the trailer is not a field of the next request');
  t.equal(be.seen[1]?.headers['x-next'], 'n');
});
