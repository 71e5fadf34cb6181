// Header values that mediation builds from a message (a JSON or form body, a backend's JSON) never split a
// head: the attack corpus (test/fixtures/attacks/header-values.json) is replayed against a real gateway with a
// recording keep-alive backend; attacks are refused with a fault and reach nobody, controls pass unchanged.
// <respond/> reflects no request header unless [mediation] respond_reflects_request_headers says so.
import t from 'tap';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { request, faultOf, rawBackend, onRequestHead, rawExchange, type ClientResponse } from '../helpers/backends.js';

const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';
const HERE = path.dirname(fileURLToPath(import.meta.url));

type Expect = 'refused' | 'passes' | 'utf8-intact';
interface JsonCase { readonly id: string; readonly value: string; readonly expect: Expect; readonly source: string }
interface FormCase { readonly id: string; readonly raw: string; readonly decoded?: string; readonly expect: Expect; readonly source: string }
interface RawCase { readonly id: string; readonly where: 'header' | 'target'; readonly hex: string; readonly source: string }
const corpus = JSON.parse(fs.readFileSync(path.join(HERE, '../fixtures/attacks/header-values.json'), 'utf8')) as { json: JsonCase[]; form: FormCase[]; raw: RawCase[] };

/** A header value as a Node backend sees it (latin1 per byte), read back as the UTF-8 the gateway wrote. */
const asSent = (v: string | string[] | undefined): string | undefined => (typeof v === 'string' ? Buffer.from(v, 'latin1').toString('utf8') : undefined);

const seq = (name: string, body: string): string =>
  `<sequence xmlns="http://ws.apache.org/ns/synapse" name="${name}">\n${body}\n</sequence>\n`;

/** Headers an injection would add, on either side. */
const INJECTED = ['set-cookie', 'x-injected', 'x-folded', 'x-vt', 'x-ignore', 'content-type-injected'];

interface Seen { readonly method: string; readonly url: string; readonly headers: http.IncomingHttpHeaders }

/**
 * A keep-alive backend that records every request it parses. POST /out answers the JSON it was sent (an out
 * sequence copies its `h` into a header); anything else answers {"ok":true}.
 */
async function recordingBackend(t: Tap): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url!.includes('/out') ? Buffer.concat(chunks) : '{"ok":true}');
    });
  });
  server.keepAliveTimeout = 60000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, seen };
}
type Tap = { teardown(fn: () => unknown): void };

function noInjectedHeaders(t: Tap & { notOk(v: unknown, m: string): void }, where: string, headers: http.IncomingHttpHeaders): void {
  for (const h of INJECTED) t.notOk(headers[h], `${where}: no ${h} header`);
}

t.test('header values built by mediation: the attack corpus is refused, the controls pass', async (t) => {
  const be = await recordingBackend(t);
  const api = (name: string, context: string, extra: string): string => apiToml({ name, context, production: be.url, verbs: ['POST'], extra });
  const s = await startSluice(t, {}, {
    [`${SEQ_DIR}/inj_header.xml`]: seq('inj_header', '  <header name="X-From-Body" expression="json-eval($.h)" scope="transport"/>'),
    [`${SEQ_DIR}/inj_property.xml`]: seq('inj_property', '  <property name="X-From-Body" expression="json-eval($.h)" scope="transport"/>'),
    [`${SEQ_DIR}/inj_respond.xml`]: seq('inj_respond', '  <header name="X-From-Body" expression="json-eval($.h)" scope="transport"/>\n  <respond/>'),
    [`${SEQ_DIR}/inj_out.xml`]: seq('inj_out', '  <header name="X-From-Body" expression="json-eval($.h)" scope="transport"/>'),
    [`${API_DIR}/inj-header.toml`]: api('InjHeader', '/injheader', 'in_sequence = "inj_header"'),
    [`${API_DIR}/inj-property.toml`]: api('InjProperty', '/injproperty', 'in_sequence = "inj_property"'),
    [`${API_DIR}/inj-respond.toml`]: api('InjRespond', '/injrespond', 'in_sequence = "inj_respond"'),
    [`${API_DIR}/inj-out.toml`]: api('InjOut', '/injout', 'out_sequence = "inj_out"'),
  });

  const post = (p: string, body: string, type: string): Promise<ClientResponse> =>
    request(s.url(p), { method: 'POST', body, headers: { 'content-type': type } });
  const refused = (r: ClientResponse, status: number, code: number, what: string): void => {
    t.equal(r.status, status, `${what}: ${status}`);
    t.equal(faultOf(r)?.code, code, `${what}: fault ${code}`);
    t.match(r.headers['content-type'], /application\/json/, `${what}: the fault format`);
    noInjectedHeaders(t, `${what} (client)`, r.headers);
  };

  // Towards the backend: a header mediator and a transport property, from a JSON body and from a form body.
  for (const route of ['/injheader/1.0.0/x', '/injproperty/1.0.0/x']) {
    for (const c of corpus.json) {
      const before = be.seen.length;
      const r = await post(route, JSON.stringify({ h: c.value }), 'application/json');
      const what = `${route} json ${c.id} (${c.source})`;
      if (c.expect === 'refused') {
        refused(r, 400, 400, what);
        t.equal(be.seen.length, before, `${what}: nothing reached the backend`);
      } else {
        t.equal(r.status, 200, `${what}: passes`);
        t.equal(asSent(be.seen.at(-1)?.headers['x-from-body']), c.value, `${what}: the backend got the value unchanged (UTF-8)`);
      }
    }
  }
  for (const c of corpus.form) {
    const before = be.seen.length;
    const r = await post('/injheader/1.0.0/x', `h=${c.raw}`, 'application/x-www-form-urlencoded');
    const what = `form ${c.id} (${c.source})`;
    if (c.expect === 'refused') {
      refused(r, 400, 400, what);
      t.equal(be.seen.length, before, `${what}: nothing reached the backend`);
    } else {
      t.equal(r.status, 200, `${what}: passes`);
      t.equal(asSent(be.seen.at(-1)?.headers['x-from-body']), c.decoded, `${what}: the backend got the decoded value`);
    }
  }
  t.same(be.seen.filter((x) => x.method !== 'POST' || x.url !== '/x').map((x) => `${x.method} ${x.url}`), [], 'the backend never parsed a second, smuggled request');
  for (const x of be.seen) noInjectedHeaders(t, `backend ${x.method} ${x.url}`, x.headers);

  // Towards the client: <respond/> with the header, and an out sequence copying a backend's JSON.
  for (const c of corpus.json) {
    let r = await post('/injrespond/1.0.0/x', JSON.stringify({ h: c.value }), 'application/json');
    const what = `respond ${c.id} (${c.source})`;
    if (c.expect === 'refused') refused(r, 400, 400, what);
    else {
      t.equal(r.status, 200, `${what}: passes`);
      t.equal(asSent(r.headers['x-from-body']), c.value, `${what}: the client got the value unchanged (UTF-8)`);
    }
    r = await post('/injout/1.0.0/out', JSON.stringify({ h: c.value }), 'application/json');
    const out = `out sequence ${c.id} (${c.source})`;
    if (c.expect === 'refused') refused(r, 502, 101510, out);
    else {
      t.equal(r.status, 200, `${out}: passes`);
      t.equal(asSent(r.headers['x-from-body']), c.value, `${out}: the client got the value unchanged (UTF-8)`);
    }
  }

  const r = await post('/injheader/1.0.0/x', '{"h":"still-serving"}', 'application/json');
  t.equal(r.status, 200, 'the gateway keeps serving');
  t.equal(be.seen.at(-1)?.headers['x-from-body'], 'still-serving');
});

t.test('a pass-through head goes to the backend as the client sent it: UTF-8 never turns into CR or LF', async (t) => {
  const heads: Buffer[] = [];
  const be = await rawBackend(t, (sock) => onRequestHead(sock, (head) => {
    heads.push(Buffer.from(head, 'latin1'));
    sock.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  }));
  const s = await startSluice(t, {}, { [`${API_DIR}/pass.toml`]: apiToml({ name: 'Pass', context: '/pass', production: be.url }) });
  for (const c of corpus.raw) {
    heads.length = 0;
    const bytes = Buffer.from(c.hex, 'hex');
    const target = c.where === 'target' ? Buffer.concat([Buffer.from('/pass/1.0.0/x'), bytes]) : Buffer.from('/pass/1.0.0/x');
    const value = c.where === 'header' ? Buffer.concat([Buffer.from('a'), bytes, Buffer.from('X-Injected: yes')]) : Buffer.from('a');
    const r = await rawExchange(s.home.ports.http, Buffer.concat([Buffer.from('GET '), target, Buffer.from(' HTTP/1.1\r\nHost: h\r\nX-Raw: '), value, Buffer.from('\r\n\r\n')]));
    const what = `${c.id} (${c.source})`;
    // The front door may refuse such a target; if the call goes through, its bytes go through unchanged.
    if (heads.length === 0) { t.match(r.text, /^HTTP\/1\.1 4\d\d /, `${what}: refused with an answer`); continue; }
    const head = heads[0]!;
    const lines = head.toString('latin1').split('\r\n');
    t.notOk(lines.some((l) => /^x-injected/i.test(l)), `${what}: no injected header line`);
    t.notOk(lines.some((l) => l.includes('\n') || l.includes('\r')), `${what}: no bare CR or LF in any line`);
    t.ok(head.includes(bytes), `${what}: the client's bytes arrived as they were sent`);
  }
});

t.test('<respond/> reflects no request header by default; the key restores the old behaviour', async (t) => {
  const be = await recordingBackend(t);
  const files = {
    [`${SEQ_DIR}/mock_reply.xml`]: seq('mock_reply', `  <payloadFactory media-type="json"><format>{"mock":true}</format><args/></payloadFactory>
  <header name="X-Set-By-Sequence" value="yes" scope="transport"/>
  <property name="HTTP_SC" value="201" scope="axis2"/>
  <respond/>`),
    // Reading the body makes the sequence content-aware: the body it answers with is the request's.
    [`${SEQ_DIR}/echo_reply.xml`]: seq('echo_reply', '  <property name="echoed" expression="json-eval($.echo)"/>\n  <respond/>'),
    [`${API_DIR}/mock.toml`]: apiToml({ name: 'Mock', context: '/mock', production: be.url, verbs: ['GET', 'POST'], extra: 'in_sequence = "mock_reply"' }),
    [`${API_DIR}/echo.toml`]: apiToml({ name: 'EchoReply', context: '/echoreply', production: be.url, verbs: ['POST'], extra: 'in_sequence = "echo_reply"' }),
  };
  const secrets = {
    authorization: 'Basic YWxpY2U6czNjcmV0',
    'proxy-authorization': 'Basic cHJveHk6cHc=',
    cookie: 'session=7f3a9c',
    'x-api-key': 'k-123',
    'x-custom': 'custom',
  };
  const s = await startSluice(t, {}, files);
  let r = await request(s.url('/mock/1.0.0/x'), { headers: secrets });
  t.equal(r.status, 201);
  t.same(r.json, { mock: true });
  t.equal(r.headers['x-set-by-sequence'], 'yes', 'a header the sequence set is sent');
  t.match(r.headers['content-type'], /application\/json/, 'the body\'s type is sent');
  for (const h of Object.keys(secrets)) t.notOk(r.headers[h], `request header ${h} is not reflected`);
  r = await request(s.url('/echoreply/1.0.0/x'), { method: 'POST', body: '{"echo":1}', headers: { ...secrets, 'content-type': 'application/json' } });
  t.equal(r.status, 200);
  t.same(r.json, { echo: 1 }, 'the request body is answered back');
  t.match(r.headers['content-type'], /application\/json/);
  for (const h of Object.keys(secrets)) t.notOk(r.headers[h], `echo: request header ${h} is not reflected`);
  t.equal(be.seen.length, 0, 'no call reached the backend');

  const old = await startSluice(t, { mediation: { respond_reflects_request_headers: true } }, files);
  r = await request(old.url('/mock/1.0.0/x'), { headers: secrets });
  t.equal(r.status, 201);
  t.equal(r.headers['x-custom'], 'custom', 'with the key, request headers come back as before');
  t.equal(r.headers['x-set-by-sequence'], 'yes');
  t.notOk(r.headers['transfer-encoding'] && r.headers['content-length'], 'never both framings');
});
