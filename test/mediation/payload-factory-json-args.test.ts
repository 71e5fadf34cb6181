// payloadFactory media-type json: $n placeholders, string args escaped as the reference escapes them,
// "$2" keeps its quotes, a bare $1 inserts the raw value, JSON values go in as JSON.
import t from 'tap';
import { MediationRuntimeError } from '../../mediation/index.js';
import { json, message, single } from './fixtures/helpers.js';

const pf = (format: string, args: string) =>
  `<payloadFactory media-type="json"><format>${format}</format><args>${args}</args></payloadFactory>`;

t.test('quoted and bare placeholders', async (t) => {
  const reg = single(pf('{"code":$1,"message":"$2","ok":$3}',
    '<arg evaluator="xml" expression="$ctx:ERROR_CODE"/><arg expression="$ctx:ERROR_MESSAGE"/><arg value="true"/>'));
  const m = message('fault', { properties: [['ERROR_CODE', 900901], ['ERROR_MESSAGE', 'Invalid Credentials']] });
  reg.run('t', m);
  t.equal(m.body!.toString(), '{"code":900901,"message":"Invalid Credentials","ok":true}');
  t.same(json(m.body), { code: 900901, message: 'Invalid Credentials', ok: true });
  t.equal(m.contentType, 'application/json');
  t.equal(m.axis2.get('messageType'), 'application/json', 'messageType follows the payload (reference setContentType)');
  t.equal(m.axis2.get('ContentType'), 'application/json');
  t.equal(m.headers.get('content-type'), 'application/json');
});

t.test('JSON-special characters in string args are escaped', async (t) => {
  const reg = single(pf('{"description":"$1","literal":"$2"}', '<arg expression="$ctx:d"/><arg value="tab\there &quot;q&quot;"/>'));
  const nasty = 'He said "hi" \\ then\nnew line\r\tand \b\f and \u0001 end';
  const m = message('fault', { properties: [['d', nasty]] });
  reg.run('t', m);
  const body = json(m.body) as { description: string; literal: string };
  t.equal(body.description, nasty, 'round-trips through JSON exactly');
  t.equal(body.literal, 'tab\there "q"');
  t.match(m.body!.toString(), /He said \\"hi\\" \\\\ then\\nnew line\\r\\tand \\b\\f and \\u0001 end/, 'escaped the reference way (+ \\u00XX for other control characters)');
});

t.test('an injection attempt stays inside its string', async (t) => {
  const reg = single(pf('{"fault":{"message":"$1","code":1}}', '<arg expression="$ctx:ERROR_MESSAGE"/>'));
  const m = message('fault', { properties: [['ERROR_MESSAGE', 'x","code":999,"admin":true,"y":"']] });
  reg.run('t', m);
  t.same(json(m.body), { fault: { message: 'x","code":999,"admin":true,"y":"', code: 1 } });
});

t.test('json-eval and evaluator="json" args insert objects and arrays as JSON, strings as text', async (t) => {
  const reg = single(pf('{"customer":$1,"items":$2,"name":"$3","first":"$4","count":$5}', `
    <arg evaluator="json" expression="$.order.customer"/>
    <arg expression="json-eval($.order.items)"/>
    <arg evaluator="json" expression="$.order.customer.name"/>
    <arg evaluator="json" expression="$.order.items[0].sku"/>
    <arg evaluator="json" expression="$.order.count"/>`));
  const body = JSON.stringify({ order: { customer: { name: 'Ann "A"', id: 7 }, items: [{ sku: 'P-1' }, { sku: 'P-2' }], count: 2 } });
  const m = message('request', { body, contentType: 'application/json' });
  reg.run('t', m);
  t.same(json(m.body), {
    customer: { name: 'Ann "A"', id: 7 },
    items: [{ sku: 'P-1' }, { sku: 'P-2' }],
    name: 'Ann "A"',
    first: 'P-1',
    count: 2,
  });
});

t.test('literal="true" keeps a JSON-looking value a string; a missing value is empty', async (t) => {
  const reg = single(pf('{"raw":"$1","missing":"$2"}', '<arg expression="$ctx:obj" literal="true"/><arg expression="$ctx:nothing"/>'));
  const m = message('request', { properties: [['obj', '{"a":1}']] });
  reg.run('t', m);
  t.same(json(m.body), { raw: '{"a":1}', missing: '' });
});

t.test('QUOTE_STRING_IN_PAYLOAD_FACTORY_JSON quotes strings but not numbers, booleans, null', async (t) => {
  const reg = single(pf('[$1,$2,$3,$4]', '<arg expression="$ctx:s"/><arg expression="$ctx:n"/><arg expression="$ctx:b"/><arg value="null"/>'));
  const m = message('request', { properties: [['QUOTE_STRING_IN_PAYLOAD_FACTORY_JSON', 'true'], ['s', 'text'], ['n', '-1.5e3'], ['b', 'false']] });
  reg.run('t', m);
  t.same(json(m.body), ['text', -1500, false, null]);
});

t.test('an XML value in a JSON payload is converted to JSON', async (t) => {
  const reg = single(pf('{"wrapped":$1}', '<arg expression="$ctx:x"/>'));
  const m = message('request', { properties: [['x', '<order><id>5</id><state>new</state></order>']] });
  reg.run('t', m);
  t.same(json(m.body), { wrapped: { order: { id: 5, state: 'new' } } });
});

t.test('a payload that is not valid JSON fails at run time, located', async (t) => {
  const reg = single(pf('{"code":$1}', '<arg expression="$ctx:ERROR_CODE"/>'));
  const m = message('fault');
  const err = t.throws(() => reg.run('t', m)) as unknown as MediationRuntimeError;
  t.type(err, MediationRuntimeError);
  t.equal(err.element, 'payloadFactory');
  t.match(err.reason, /not valid JSON/);
});

t.test('the built JSON is kept as the parsed body: json-eval after it does not parse again', async (t) => {
  const reg = single(`${pf('{"a":{"b":"$1"}}', '<arg value="deep"/>')}<property name="got" expression="json-eval($.a.b)"/>`);
  const m = message('request');
  let builds = 0;
  const build = m.codecs.build.bind(m.codecs);
  (m.codecs as { build: typeof build }).build = (b, ct) => { builds++; return build(b, ct); };
  try {
    reg.run('t', m);
  } finally {
    delete (m.codecs as { build?: unknown }).build;
  }
  t.equal(m.properties.get('got'), 'deep');
  t.equal(builds, 0);
});

t.test('media-type text', async (t) => {
  const reg = single('<payloadFactory media-type="text"><format>code=$1 &lt;ok&gt;</format><args><arg expression="$ctx:c"/></args></payloadFactory>');
  const m = message('request', { properties: [['c', 'a"b']] });
  reg.run('t', m);
  t.equal(m.body!.toString(), 'code=a"b <ok>');
  t.equal(m.contentType, 'text/plain');
});
