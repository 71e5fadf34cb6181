// Builders (JSON, XML, SOAP, form, multipart, text, binary), used only when a mediator needs the body and at
// most once per message; formatters converting on messageType; custom builder / formatter modules by class.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CodecLoadError, Codecs, MediationMessage, defaultCodecs, familyOf, loadCodecs } from '../../mediation/index.js';
import { json, message, single, tmpDir } from './fixtures/helpers.js';

t.test('content types fall into families', async (t) => {
  const cases: [string, string][] = [
    ['application/json; charset=UTF-8', 'json'], ['application/vnd.api+json', 'json'], ['text/javascript', 'json'],
    ['application/json/badgerfish', 'json'], ['application/xml', 'xml'], ['application/atom+xml', 'xml'],
    ['text/xml', 'soap11'], ['application/soap+xml', 'soap12'], ['application/x-www-form-urlencoded', 'form'],
    ['multipart/form-data; boundary=x', 'multipart'], ['text/plain', 'text'], ['application/octet-stream', 'binary'],
    ['', 'binary'],
  ];
  for (const [ct, fam] of cases) t.equal(familyOf(ct), fam, ct);
});

t.test('each built-in builder', async (t) => {
  const c = defaultCodecs();
  t.same(c.build(Buffer.from('\ufeff{"a":[1]}'), 'application/json'), { kind: 'json', value: { a: [1] } });
  const xml = c.build(Buffer.from('<a x="1"><b>t</b></a>'), 'application/xml');
  t.equal(xml.kind, 'xml');
  t.same(c.jsonView(xml), { a: { '@x': 1, b: 't' } });
  const soap = c.build(Buffer.from('<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><q>1</q></e:Body></e:Envelope>'), 'application/soap+xml');
  t.match(soap, { kind: 'xml', soap: '12' });
  t.same(c.jsonView(soap), { q: 1 }, 'the SOAP body\'s payload');
  t.same(c.build(Buffer.from('a=1&b=x%20y&a=2'), 'application/x-www-form-urlencoded'), { kind: 'form', value: { a: ['1', '2'], b: 'x y' } });
  t.same(c.build(Buffer.from('hello'), 'text/plain'), { kind: 'text', value: 'hello' });
  const bin = c.build(Buffer.from([1, 2, 3]), 'image/png');
  t.equal(bin.kind, 'binary');
  t.throws(() => c.build(Buffer.from('{nope'), 'application/json'), /malformed JSON body/);
  t.throws(() => c.build(Buffer.from('<a><b></a>'), 'application/xml'), /malformed XML body/);
});

t.test('multipart/form-data is split on its boundary; parts stay binary', async (t) => {
  const body = Buffer.concat([
    Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue 1\r\n'),
    Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'),
    Buffer.from([0, 255, 13, 10, 45, 45]),
    Buffer.from('\r\n--XyZ--\r\n'),
  ]);
  const built = defaultCodecs().build(body, 'multipart/form-data; boundary="XyZ"');
  if (built.kind !== 'multipart') throw new Error('expected multipart');
  t.equal(built.value.length, 2);
  t.match(built.value[0], { name: 'field', filename: null });
  t.equal(built.value[0]!.data.toString(), 'value 1');
  t.match(built.value[1], { name: 'file', filename: 'a.bin', contentType: 'application/octet-stream' });
  t.same([...built.value[1]!.data], [0, 255, 13, 10, 45, 45]);
  t.same(defaultCodecs().jsonView(built), { field: 'value 1' }, 'json-eval sees the text fields');
  t.throws(() => defaultCodecs().build(body, 'multipart/form-data'), /without a boundary/);
});

t.test('the body is built at most once per message, and only when a mediator needs it', async (t) => {
  let builds = 0;
  const counting = new (class extends Codecs {
    override build(buf: Buffer, ct: string) { builds++; return super.build(buf, ct); }
  })();
  const reg = single('<property name="a" expression="json-eval($.a)"/><property name="b" expression="json-eval($.b)"/><filter source="json-eval($.a)" regex="1"><log/></filter>');
  const m = new MediationMessage('request', {}, { body: Buffer.from('{"a":1,"b":2}'), contentType: 'application/json' }, counting);
  reg.run('t', m);
  t.equal(builds, 1);
  t.equal(m.properties.get('b'), '2');
  const passThrough = single('<property name="x" value="1"/><header name="X" value="y" scope="transport"/>');
  const p = new MediationMessage('request', {}, { body: Buffer.from('{not even json'), contentType: 'application/json' }, counting);
  passThrough.run('t', p);
  t.equal(builds, 1, 'no mediator read the body: not built');
  t.equal(p.toResponse(200).body!.toString(), '{not even json', 'and it goes out untouched');
});

t.test('formatters convert on messageType: form, text, xml', async (t) => {
  const toForm = single('<property name="messageType" value="application/x-www-form-urlencoded" scope="axis2"/>');
  const m = message('request', { body: '{"grant_type":"client_credentials","scope":["a","b"]}', contentType: 'application/json' });
  toForm.run('t', m);
  t.equal(m.toResponse(200).body!.toString(), 'grant_type=client_credentials&scope=a&scope=b');
  const toText = single('<property name="messageType" value="text/plain" scope="axis2"/>');
  const x = message('response', { body: '<a>hello <b>world</b></a>', contentType: 'application/xml' });
  toText.run('t', x);
  t.equal(x.toResponse(200).body!.toString(), 'hello world');
  const formToXml = single('<property name="messageType" value="application/xml" scope="axis2"/>');
  const f = message('request', { body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' });
  formToXml.run('t', f);
  t.equal(f.toResponse(200).body!.toString(), '<jsonObject><a>1</a><b>2</b></jsonObject>');
  const broken = message('request', { body: '{oops', contentType: 'application/json' });
  toText.run('t', broken);
  const res = broken.toResponse(200);
  t.equal(res.body!.toString(), '{oops', 'a body that does not parse is sent as it is');
  t.same(res.headers, [['Content-Type', 'application/json']], 'typed as it was');
});

t.test('custom builder and formatter modules, by class path (absolute or relative to the home)', async (t) => {
  const home = tmpDir(t);
  fs.mkdirSync(path.join(home, 'lib'));
  fs.writeFileSync(path.join(home, 'lib', 'csv-builder.mjs'),
    'export function build(buf, ct) { const [h, ...rows] = buf.toString().trim().split("\\n").map((l) => l.split(",")); return { ct, rows: rows.map((r) => Object.fromEntries(r.map((v, i) => [h[i], v]))) }; }\n');
  fs.writeFileSync(path.join(home, 'csv-formatter.mjs'),
    'export function format(message, ct) { const v = message.built(); return "csv:" + ct + ":" + JSON.stringify(v.value); }\n');
  const codecs = await loadCodecs({
    builders: [{ contentType: 'text/csv', module: 'lib/csv-builder.mjs' }],
    formatters: [{ contentType: 'application/x-acme', module: path.join(home, 'csv-formatter.mjs') }],
    disableAutoPrimitiveRegex: null,
    preserveNamespaceOnXmlToJson: false,
    home,
  });
  const reg = single('<property name="who" expression="json-eval($.rows[1].name)"/><property name="messageType" value="application/x-acme" scope="axis2"/>');
  const m = new MediationMessage('request', {}, { body: Buffer.from('id,name\n1,ann\n2,bob\n'), contentType: 'text/csv; charset=utf-8' }, codecs);
  reg.run('t', m);
  t.equal(m.properties.get('who'), 'bob');
  const out = m.toResponse(200);
  t.match(out.body!.toString(), /^csv:application\/x-acme:\{"ct":"text\/csv; charset=utf-8","rows":\[/);
  t.same(out.headers, [['Content-Type', 'application/x-acme']]);
});

t.test('a custom module that does not load, or lacks its function, is a clear error', async (t) => {
  const home = tmpDir(t);
  fs.writeFileSync(path.join(home, 'nofn.mjs'), 'export const x = 1;\n');
  fs.writeFileSync(path.join(home, 'syntax.mjs'), 'export function build( {\n');
  const settings = { formatters: [], disableAutoPrimitiveRegex: null, preserveNamespaceOnXmlToJson: false, home };
  await t.rejects(loadCodecs({ ...settings, builders: [{ contentType: 'text/csv', module: 'missing.mjs' }] }),
    { name: 'CodecLoadError', message: /text\/csv \(missing\.mjs\): module not found: .*missing\.mjs/ });
  await t.rejects(loadCodecs({ ...settings, builders: [{ contentType: 'text/csv', module: 'nofn.mjs' }] }),
    { message: /does not export a function build\(buffer, contentType\)/ });
  await t.rejects(loadCodecs({ ...settings, builders: [{ contentType: 'text/csv', module: 'syntax.mjs' }] }),
    { message: /cannot load .*syntax\.mjs/ });
  await t.rejects(loadCodecs({ ...settings, builders: [], formatters: [{ contentType: 'a/b', module: 'nofn.mjs' }] }),
    { message: /does not export a function format\(message, contentType\)/ });
  const e = await loadCodecs({ ...settings, builders: [], disableAutoPrimitiveRegex: '(' }).catch((x: unknown) => x);
  t.type(e, CodecLoadError);
});

t.test('disable_auto_primitive_regex and preserve_namespace_on_xml_to_json', async (t) => {
  const codecs = await loadCodecs({ builders: [], formatters: [], disableAutoPrimitiveRegex: '^\\d{6}$', preserveNamespaceOnXmlToJson: true, home: '/' });
  const m = new MediationMessage('fault', {}, { body: Buffer.from('<am:f xmlns:am="urn:x"><am:code>900901</am:code><am:n>12</am:n></am:f>'), contentType: 'application/xml' }, codecs);
  m.axis2.set('messageType', 'application/json');
  t.same(json(m.toResponse(500).body), { 'am:f': { '@xmlns:am': 'urn:x', 'am:code': '900901', 'am:n': 12 } });
});
