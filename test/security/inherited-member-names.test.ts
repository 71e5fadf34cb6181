// Member names that every plain JavaScript object inherits (__proto__, constructor, toString...) come from
// request data wherever mediation turns a body into JSON: form fields, XML elements, multipart fields. The
// corpus (test/fixtures/attacks/object-keys.json, sources there) is sent to a real gateway whose in-sequence
// converts each form and XML body to JSON for a recording backend (multipart fields, a JSON view for
// expressions only, are checked in-process): every name must arrive as a member of its own with
// the value sent (repeated names as an array), and nothing else in the document may change. A lookup that
// finds the inherited member instead of the missing own one drops the field, turns it into [null, "v"] or
// re-parents the object.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { recordingBackend, rawRequest } from '../helpers/recording-backend.js';
import { request } from '../helpers/backends.js';
import { Codecs } from '../../mediation/index.js';
import { wsApiToml, wsBackend, wsOpen } from '../helpers/websockets.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';
interface KeyCase { readonly id: string; readonly key: string; readonly source: string }
const corpus = JSON.parse(fs.readFileSync(path.join(HERE, '../fixtures/attacks/object-keys.json'), 'utf8')) as { attacks: KeyCase[]; controls: KeyCase[] };
/** Names fast-xml-parser will not take as element names at all (it throws). */
const PARSER_REFUSES = new Set(['__proto__', 'constructor', 'prototype']);
const CASES = [...corpus.attacks.map((c) => ({ ...c, control: false })), ...corpus.controls.map((c) => ({ ...c, control: true }))];

/** What the backend got, parsed; its own members only, so an inherited name cannot pass for one. */
function ownJson(body: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const own = (o: unknown, k: string): unknown =>
  (o !== null && typeof o === 'object' && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);

t.test('form and XML member names that objects inherit arrive as members of their own', async (t) => {
  t.ok(corpus.attacks.length >= 10 && corpus.controls.length >= 5, 'the corpus has its attacks and controls');
  const be = await recordingBackend(t);
  const s = await startSluice(t, {}, {
    [`${SEQ_DIR}/to_json.xml`]: '<sequence xmlns="http://ws.apache.org/ns/synapse" name="to_json">\n  <property name="messageType" value="application/json" scope="axis2"/>\n</sequence>\n',
    [`${API_DIR}/keys.toml`]: apiToml({ name: 'Keys', context: '/keys', production: `${be.url}/base`, verbs: ['POST'], extra: 'in_sequence = "to_json"' }),
  });
  const post = async (body: string, type: string): Promise<{ status: number; got: Record<string, unknown> | null; raw: string }> => {
    be.reset();
    const r = await request(s.url('/keys/1.0.0/x'), { method: 'POST', body, headers: { 'content-type': type } });
    const seen = be.seen[0];
    return { status: r.status, got: seen ? ownJson(seen.body) : null, raw: seen ? seen.body.toString('utf8') : '(nothing reached the backend)' };
  };

  for (const c of CASES) {
    const what = `${c.control ? 'control' : 'attack'} ${c.id} (${c.key})`;
    const k = encodeURIComponent(c.key);

    let r = await post(`${k}=v1&after=a`, 'application/x-www-form-urlencoded');
    t.equal(r.status, 200, `${what}: form: answered`);
    t.equal(own(r.got, c.key), 'v1', `${what}: form: the field is a member with its value`, { got: r.raw });
    t.equal(own(r.got, 'after'), 'a', `${what}: form: the field after it is intact`, { got: r.raw });

    r = await post(`${k}=v1&${k}=v2`, 'application/x-www-form-urlencoded');
    t.same(own(r.got, c.key), ['v1', 'v2'], `${what}: form: a repeated field is an array of what was sent`, { got: r.raw });

    const xml = `<r><${c.key}><a>1</a></${c.key}><a>2</a><${c.key}>t</${c.key}></r>`;
    r = await post(xml, 'application/xml');
    t.equal(r.status, 200, `${what}: XML: answered`);
    if (PARSER_REFUSES.has(c.key)) {
      // fast-xml-parser refuses these three names: the body does not build, so it goes as it came
      // (message.ts toResponse), never as a JSON document missing the element (docs/decisions.md).
      t.equal(r.raw, xml, `${what}: XML: a body the parser refuses reaches the backend unchanged`);
    } else {
      t.same(own(own(r.got, 'r'), c.key), [{ a: 1 }, 't'], `${what}: XML: the repeated element is an array of both`, { got: r.raw });
      t.same(own(own(r.got, 'r'), 'a'), 2, `${what}: XML: a sibling keeps its one value`, { got: r.raw });
    }
  }

  // After every case, a plain document still converts as it should (no state of the converter changed).
  const r = await post('x=1&y=2', 'application/x-www-form-urlencoded');
  t.same(r.got, { x: '1', y: '2' }, 'a plain form afterwards converts to exactly its fields');
});

t.test('multipart fields seen as JSON (json-eval) keep names that objects inherit as members of their own', async (t) => {
  // A multipart body is not converted to JSON on the way out; its fields are a JSON view for expressions.
  const codecs = new Codecs();
  const boundary = 'b0undary';
  const part = (name: string, v: string): string => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${v}\r\n`;
  for (const c of CASES) {
    const what = `${c.control ? 'control' : 'attack'} ${c.id} (${c.key})`;
    const body = Buffer.from(`${part(c.key, 'm1')}${part('after', 'a')}--${boundary}--\r\n`);
    const view = codecs.jsonView(codecs.build(body, `multipart/form-data; boundary=${boundary}`));
    t.equal(own(view, c.key), 'm1', `${what}: the field is a member with its value`);
    t.equal(own(view, 'after'), 'a', `${what}: the field after it is intact`);
    t.equal(Object.getPrototypeOf(view), Object.prototype, `${what}: the view is still a plain object`);
  }
});

t.test('request headers named like inherited members are analytics header members of their own', async (t) => {
  const be = await recordingBackend(t);
  const s = await startSluice(t, {
    apim: { analytics: { enable: true, type: 'log', properties: { send_headers: true } } },
  }, { [`${API_DIR}/keys.toml`]: apiToml({ name: 'Keys', context: '/keys', production: `${be.url}/base`, verbs: ['GET'] }) });
  // Header names are case-insensitive: toString and tostring are one name here.
  const names = [...new Set(CASES.map((c) => c.key.toLowerCase()))];
  const head = `GET /keys/1.0.0/h HTTP/1.1\r\nHost: gw\r\n${names.map((n, i) => `${n}: v${i}\r\n`).join('')}${names[0]}: again\r\nConnection: close\r\n\r\n`;
  const r = await rawRequest(s.home.ports.http, [Buffer.from(head, 'latin1')], 1);
  t.equal(r.statuses[0], 200, 'answered');
  const file = path.join(s.home.dir, 'repository/logs/analytics.log');
  const event = await eventually(() => {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('"Keys"')) : [];
    return lines.length > 0 ? (JSON.parse(lines[0]!) as { properties: { requestHeaders: Record<string, unknown> } }) : null;
  }, 'the analytics event');
  const headers = event.properties.requestHeaders;
  names.forEach((n, i) => {
    t.equal(own(headers, n), i === 0 ? `v${i}, again` : `v${i}`, `the header ${n} with its value${i === 0 ? 's joined' : ''}`);
  });
});

t.test('WebSocket handshake headers named like inherited members reach the backend as sent', async (t) => {
  const raw: string[][] = [];
  const be = await wsBackend(t, (ws, req) => { raw.push(req.rawHeaders); ws.on('message', (m: Buffer) => ws.send(m)); });
  const s = await startSluice(t, {}, { [`${API_DIR}/ws.toml`]: wsApiToml({ name: 'Ws', context: '/ws', production: be.url, authType: 'None' }) });
  // Header names are case-insensitive: toString and tostring are one name here.
  const names = [...new Set(CASES.map((c) => c.key.toLowerCase()))];
  // JSON.parse: an object literal's __proto__ would set the prototype instead of naming a header.
  const headers = JSON.parse(JSON.stringify(Object.fromEntries(names.map((n, i) => [`x${n}`, `v${i}`]))).replace(/"x/g, '"')) as Record<string, string>;
  t.same(Object.keys(headers), names, 'every name is a header to send');
  const opened = await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { headers });
  t.ok('ws' in opened, 'upgraded');
  if ('ws' in opened) opened.ws!.close();
  const got = new Map<string, string[]>();
  const seen = raw[0] ?? [];
  for (let i = 0; i < seen.length; i += 2) {
    const k = seen[i]!.toLowerCase();
    got.set(k, [...(got.get(k) ?? []), seen[i + 1]!]);
  }
  names.forEach((n, i) => t.same(got.get(n), [`v${i}`], `the header ${n} reached the backend once, as sent`));
});
