// What the gateway must hold whole has a cap: a request body it reads whole (GraphQL, body validation, a
// content-aware in sequence) over [passthru_http] max_buffered_request_body_size gets 413 and a closed
// connection, at once when its Content-Length says so, nothing reaching the backend; a response held for an
// out sequence over max_buffered_response_body_size gets 502 (101510). An API file may set its own caps.
// Streamed bodies stay uncapped. Memory is checked by RSS with a generous bound; GraphQL queries are held to a
// token and a depth limit (test/fixtures/attacks/graphql-queries.json).
import t from 'tap';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getIntrospectionQuery } from 'graphql';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request, faultOf, type SeenRequest } from '../helpers/backends.js';

const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;
/** RSS growth allowed while a 64 MiB body is refused or streamed (the default cap is 10 MiB). */
const RSS_BOUND = 40 * MiB;

const seq = (name: string, body: string): string => `<sequence xmlns="http://ws.apache.org/ns/synapse" name="${name}">\n${body}\n</sequence>\n`;

interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** Body bytes the client had written when the first byte of the answer arrived. */
  readonly sentWhenAnswered: number;
  readonly sent: number;
}

/**
 * Sends a request with a `size`-byte body (1 MiB pieces of one reused buffer, so the client itself allocates
 * nothing per piece), chunked or with a Content-Length, and reads one whole answer (Content-Length or chunked);
 * then it stops sending and closes, as a client told `Connection: close` does.
 */
function sendBody(port: number, target: string, contentType: string, size: number, chunked: boolean): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const piece = Buffer.alloc(MiB, 0x61);
    const s = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    let sent = 0;
    let sentWhenAnswered = -1;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      s.destroy();
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head: end < 0 ? text : text.slice(0, end), body: end < 0 ? '' : text.slice(end + 4), sentWhenAnswered, sent });
    };
    const complete = (): boolean => {
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      return length ? got.length - end - 4 >= Number(length[1]) : text.endsWith('0\r\n\r\n');
    };
    s.on('data', (d: Buffer) => { if (sentWhenAnswered < 0) sentWhenAnswered = sent; got = Buffer.concat([got, d]); if (complete()) finish(); });
    // A write error (the gateway closed) is not the end: what it answered may still be unread.
    s.on('error', () => {});
    s.on('close', finish);
    s.write(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`}\r\n\r\n`);
    // One piece a turn: an answer that has arrived is seen before the next piece is written. A loop that
    // wrote while the socket took more only looked at its input when the socket pushed back, and a gateway
    // that drained the rest of a refused body quickly let it write 12 MiB past the answer (once in a CI run).
    const pump = (): void => {
      if (sent >= size || done) { if (chunked && !done) s.write('0\r\n\r\n'); return; }
      const n = Math.min(MiB, size - sent);
      const bytes = n === MiB ? piece : piece.subarray(0, n);
      if (chunked) s.write(`${n.toString(16)}\r\n`);
      let ok = s.write(bytes);
      if (chunked) ok = s.write('\r\n');
      sent += n;
      if (!ok) s.once('drain', pump); else setImmediate(pump);
    };
    pump();
  });
}

/** The JSON of an answer's body, chunked or not. */
function jsonOf(body: string): unknown {
  return JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1));
}

const rss = (): number => process.memoryUsage().rss;

t.test('a request body read whole is capped: 413, connection closed, nothing to the backend, RSS flat', async (t) => {
  const be = await echoBackend(t);
  const api = (name: string, context: string, extra = '', type = 'HTTP'): string => apiToml({ name, context, production: be.url, verbs: ['POST'], type, extra });
  const s = await startSluice(t, { passthru_http: { force_json_validation: true } }, {
    [`${SEQ_DIR}/reads_body.xml`]: seq('reads_body', '  <property name="who" expression="json-eval($.who)"/>'),
    [`${API_DIR}/gql.toml`]: api('Gql', '/gql', '', 'GRAPHQL'),
    [`${API_DIR}/inseq.toml`]: api('InSeq', '/inseq', 'in_sequence = "reads_body"'),
    [`${API_DIR}/plain.toml`]: api('Plain', '/plain'),
    [`${API_DIR}/small.toml`]: api('Small', '/small', 'in_sequence = "reads_body"\nmax_buffered_request_body_size = 4096'),
    [`${API_DIR}/large.toml`]: api('Large', '/large', 'in_sequence = "reads_body"\nmax_buffered_request_body_size = 16777216'),
  });
  const port = s.home.ports.http;
  const cases = [
    { what: 'GraphQL JSON, Content-Length', target: '/gql/1.0.0/q', type: 'application/json', chunked: false },
    { what: 'GraphQL application/graphql, chunked', target: '/gql/1.0.0/q', type: 'application/graphql', chunked: true },
    { what: 'content-aware in sequence, Content-Length', target: '/inseq/1.0.0/x', type: 'text/plain', chunked: false },
    { what: 'content-aware in sequence, chunked', target: '/inseq/1.0.0/x', type: 'text/plain', chunked: true },
    { what: 'force_json_validation, chunked', target: '/plain/1.0.0/x', type: 'application/json', chunked: true },
  ];
  for (const c of cases) {
    const before = rss();
    const a = await sendBody(port, c.target, c.type, 64 * MiB, c.chunked);
    const grew = rss() - before;
    if (!t.equal(a.status, 413, `${c.what}: 413`)) t.comment(JSON.stringify({ head: a.head, body: a.body.slice(0, 300), sent: a.sent, at: a.sentWhenAnswered }));
    const fault = jsonOf(a.body) as { fault: { code: number; description: string } };
    t.equal(fault.fault.code, 413, `${c.what}: fault 413 in the fault format`);
    t.match(fault.fault.description, /larger than the 10485760 bytes/, `${c.what}: says the cap`);
    t.match(a.head, /\r\nconnection: close/i, `${c.what}: the client is told to close the connection`);
    t.ok(a.sentWhenAnswered < 64 * MiB, `${c.what}: answered before the body was all sent (${a.sentWhenAnswered} sent)`);
    if (!c.chunked) t.ok(a.sentWhenAnswered < 11 * MiB, `${c.what}: answered from the Content-Length, before the cap's worth was read (${a.sentWhenAnswered} sent)`);
    t.ok(grew < RSS_BOUND, `${c.what}: RSS grew ${(grew / MiB).toFixed(1)} MiB (< ${RSS_BOUND / MiB})`);
  }
  t.equal(be.seen.length, 0, 'nothing reached the backend');

  // An API's own cap, lower and higher than the node's.
  let r = await request(s.url('/small/1.0.0/x'), { method: 'POST', body: JSON.stringify({ who: 'x'.repeat(5000) }), headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 413, 'an API with a 4 KiB cap refuses 5 KB');
  t.match(faultOf(r)?.description, /4096 bytes/);
  r = await request(s.url('/small/1.0.0/x'), { method: 'POST', body: JSON.stringify({ who: 'x'.repeat(3000) }), headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200, 'and takes 3 KB');
  const twelve = Buffer.concat([Buffer.from('{"who":"'), Buffer.alloc(12 * MiB, 0x62), Buffer.from('"}')]);
  r = await request(s.url('/large/1.0.0/x'), { method: 'POST', body: twelve, headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200, 'an API with a 16 MiB cap takes 12 MiB (over the node\'s 10 MiB)');
  t.equal((r.json as SeenRequest).bodySha, crypto.createHash('sha256').update(twelve).digest('hex'), 'whole');

  // Streamed bodies have no cap: 128 MiB through a plain API, memory flat.
  const before = rss();
  const a = await sendBody(port, '/plain/1.0.0/up', 'application/octet-stream', 128 * MiB, false);
  const grew = rss() - before;
  t.equal(a.status, 200, 'a 128 MiB streamed upload passes');
  t.equal((jsonOf(a.body) as SeenRequest).bodyLength, 128 * MiB, 'the backend got every byte');
  // Half the body: held whole, the upload alone would add 128 MiB. (The test process holds the client and
  // the echo backend too; under a loaded CI machine their buffers took this to 41 MiB once.)
  t.ok(grew < 64 * MiB, `streamed: RSS grew ${(grew / MiB).toFixed(1)} MiB (< 64, half the body)`);

  r = await request(s.url('/gql/1.0.0/q'), { method: 'POST', body: '{"query":"{ menu { name } }"}', headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200, 'the gateway keeps serving');
});

t.test('a response held for an out sequence is capped: 502 (101510), RSS flat; streamed responses are not', async (t) => {
  const huge = 64 * MiB;
  const piece = Buffer.alloc(MiB, 0x7a);
  const backend = http.createServer((req, res) => {
    req.resume();
    if (req.url!.endsWith('/ok')) { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"name":"margherita"}'); return; }
    const chunked = req.url!.endsWith('/chunked');
    res.writeHead(200, chunked ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'content-length': huge });
    let n = 0;
    const pump = (): void => { while (n < huge) { n += MiB; if (!res.write(piece)) { res.once('drain', pump); return; } } res.end(); };
    res.on('error', () => {});
    pump();
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { backend.closeAllConnections(); backend.close(() => r()); }));
  const url = `http://127.0.0.1:${(backend.address() as net.AddressInfo).port}`;
  const s = await startSluice(t, {}, {
    [`${SEQ_DIR}/reads_response.xml`]: seq('reads_response', `  <payloadFactory media-type="json"><format>{"first":"$1"}</format>
    <args><arg evaluator="json" expression="$.name"/></args></payloadFactory>`),
    [`${API_DIR}/held.toml`]: apiToml({ name: 'Held', context: '/held', production: url, verbs: ['GET'], extra: 'out_sequence = "reads_response"' }),
    [`${API_DIR}/streamed.toml`]: apiToml({ name: 'Streamed', context: '/streamed', production: url, verbs: ['GET'] }),
  });
  for (const kind of ['length', 'chunked']) {
    const before = rss();
    const r = await request(s.url(`/held/1.0.0/${kind}`));
    const grew = rss() - before;
    t.equal(r.status, 502, `${kind}: 502`);
    t.equal(faultOf(r)?.code, 101510, `${kind}: fault 101510`);
    t.match(faultOf(r)?.description, /larger than the 10485760 bytes the out sequence/, `${kind}: says why`);
    t.ok(grew < RSS_BOUND, `${kind}: RSS grew ${(grew / MiB).toFixed(1)} MiB`);
  }
  let r = await request(s.url('/held/1.0.0/ok'));
  t.same(r.json, { first: 'margherita' }, 'a small response is still held and rewritten');
  const before = rss();
  const streamed = await new Promise<{ status: number; bytes: number }>((resolve) => {
    http.get(s.url('/streamed/1.0.0/length'), { agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => resolve({ status: res.statusCode!, bytes }));
    });
  });
  t.equal(streamed.status, 200);
  t.equal(streamed.bytes, huge, 'a 64 MiB response without an out sequence streams whole');
  t.ok(rss() - before < RSS_BOUND, `streamed: RSS grew ${((rss() - before) / MiB).toFixed(1)} MiB`);
});

interface QueryCase { readonly id: string; readonly prefix?: string; readonly unit?: string; readonly count?: number; readonly suffix?: string; readonly introspection?: boolean; readonly expect: 'refused' | 'passes'; readonly source: string }

function buildQuery(c: QueryCase): string {
  if (c.introspection) return getIntrospectionQuery();
  const suffix = c.suffix === 'CLOSE_BRACES' ? '}'.repeat(c.count!) : c.suffix === 'CLOSE_BRACKETS' ? `${']'.repeat(c.count!)}) }` : c.suffix!;
  return c.prefix! + c.unit!.repeat(c.count!) + suffix;
}

t.test('GraphQL queries are held to a token and a depth limit before they are parsed', async (t) => {
  const corpus = JSON.parse(fs.readFileSync(path.join(HERE, '../fixtures/attacks/graphql-queries.json'), 'utf8')) as { queries: QueryCase[] };
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/gql.toml`]: apiToml({ name: 'Gql', context: '/gql', production: be.url, verbs: ['POST'], type: 'GRAPHQL' }) });
  for (const c of corpus.queries) {
    const q = buildQuery(c);
    for (const [type, body] of [['application/json', JSON.stringify({ query: q })], ['application/graphql', q]] as const) {
      const r = await request(s.url('/gql/1.0.0/q'), { method: 'POST', body, headers: { 'content-type': type } });
      const what = `${c.id} as ${type} (${c.source})`;
      if (c.expect === 'passes') { t.equal(r.status, 200, `${what}: passes`); continue; }
      t.equal(r.status, 422, `${what}: 422`);
      t.equal(faultOf(r)?.code, 900422, `${what}: fault 900422`);
      t.match(faultOf(r)?.description, /max_tokens|max_depth/, `${what}: says which limit`);
    }
  }
  const r = await request(s.url('/gql/1.0.0/q'), { method: 'POST', body: '{"query":"{ a }"}', headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200, 'the gateway keeps serving');
});

t.test('an API file\'s caps are whole numbers of bytes, at least 1024', async (t) => {
  const { parseApiDefinition } = await import('../../engine/registry/api-file.js');
  const doc = (extra: Record<string, unknown>): Record<string, unknown> => ({ name: 'A', context: '/a', version: '1', endpoints: { production: 'http://127.0.0.1:1' }, resources: [{ verb: 'GET', uri_template: '/*' }], ...extra });
  t.equal(parseApiDefinition(doc({ max_buffered_request_body_size: 2048 }), 'a.toml').maxBufferedRequestBodySize, 2048);
  t.equal(parseApiDefinition(doc({ max_buffered_response_body_size: '4096' }), 'a.toml').maxBufferedResponseBodySize, 4096);
  t.throws(() => parseApiDefinition(doc({ max_buffered_request_body_size: 100 }), 'a.toml'), /max_buffered_request_body_size: 100 must be a whole number of bytes, at least 1024/);
  t.throws(() => parseApiDefinition(doc({ max_buffered_response_body_size: 2048.5 }), 'a.toml'), /at least 1024/);
  t.equal(parseApiDefinition(doc({}), 'a.toml').maxBufferedRequestBodySize, undefined, 'absent: the node\'s cap');
});
