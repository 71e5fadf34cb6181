// header: set and remove transport headers; WS-Addressing names in the default scope are accepted no-ops.
import t from 'tap';
import { message, registryOf, seq, single } from './fixtures/helpers.js';
import { MediationRuntimeError, SequenceDeployError, parseSequence, renderFault } from '../../mediation/index.js';

t.test('set from a value and an expression, remove, case-insensitive', async (t) => {
  const reg = single(`
    <header name="X-Api" expression="get-property('api.ut.api')" scope="transport"/>
    <header name="X-Fixed" value="1"/>
    <header name="x-remove-me" action="remove" scope="transport"/>
    <header name="X-Fixed" value="2" scope="transport"/>`);
  const m = message('request', { facts: { apiName: 'PizzaShackAPI' }, headers: [['X-Remove-Me', 'x'], ['Host', 'h']] });
  reg.run('t', m);
  t.same(m.headers.entries(), [['Host', 'h'], ['X-Api', 'PizzaShackAPI'], ['X-Fixed', '2']]);
});

t.test('To, Action and the other addressing headers have no effect in the default scope', async (t) => {
  const reg = single('<header name="To" action="remove"/><header name="Action" value="urn:x"/>');
  const m = message('fault', { headers: [['To', 'kept']] });
  reg.run('t', m);
  t.same(m.headers.entries(), [['To', 'kept']]);
  const trp = single('<header name="To" action="remove" scope="transport"/>');
  trp.run('t', m);
  t.equal(m.headers.size, 0, 'in the transport scope, To is an HTTP header like any other');
});

// Header names and values a sequence writes can never split a head (transport/field-values.ts): literal ones are
// refused when the file deploys, computed ones when they are set; the fault path falls back past a sequence that
// tries. The attack corpus against a running gateway is test/security/mediation-header-injection.test.ts.
t.test('a literal header name or value that could split a head is a deploy error, located', async (t) => {
  // fast-xml-parser keeps character references (&#10;) as text; a raw line break in an attribute is a line break.
  const bad = [
    ['<header name="X-A" value="a\r\nSet-Cookie: x=1"/>', /X-A holds U\+000A at 1/],
    ['<header name="X-A" value="a\nb"/>', /U\+000A/],
    ['<header name="X Bad" value="1"/>', /"X Bad" is not a header name/],
    ['<header name="X:Bad" action="remove"/>', /"X:Bad" is not a header name/],
    ['<property name="X-P" value="a\u0001" scope="transport"/>', /X-P holds U\+0001/],
    ['<property name="Bad Name" value="1" scope="transport"/>', /"Bad Name" is not a header name/],
    ['<property name="messageType" value="application/json\nX-I: 1" scope="axis2"/>', /messageType holds U\+000A/],
  ] as const;
  for (const [xml, why] of bad) {
    let err: unknown;
    try { parseSequence(seq('t', xml), '/x/t.xml'); } catch (e) { err = e; }
    t.ok(err instanceof SequenceDeployError && why.test(err.message) && err.line > 0, `${JSON.stringify(xml)}: ${(err as Error | undefined)?.message}`);
  }
  t.doesNotThrow(() => parseSequence(seq('t', '<header name="X-Tab" value="a\tb"/><property name="p" value="a\nb"/><header name="X-Lang" value="\u65e5\u672c"/>'), '/x/t.xml'),
    'HTAB in a header, a line break in a default-scope property, and characters above U+00FF (checked when set) deploy');
});

t.test('a computed value is checked where it is set: controls refused, any other character kept as text', async (t) => {
  const reg = single('<header name="X-From-Body" expression="json-eval($.h)" scope="transport"/>');
  const run = (direction: 'request' | 'response', h: string): unknown => {
    const m = message(direction, { body: JSON.stringify({ h }), contentType: 'application/json', headers: [['Accept', '*/*']] });
    try { reg.run('t', m); return m.headers.get('X-From-Body'); } catch (err) { return err; }
  };
  for (const h of ['a\r\nSet-Cookie: x=1', 'a\nb', 'a\u0000b', 'a\u001bb', 'a\u007fb']) {
    for (const d of ['request', 'response'] as const) {
      const r = run(d, h);
      t.ok(r instanceof MediationRuntimeError && r.unsafeHeader, `${JSON.stringify(h)} (${d}): refused as an unsafe header`);
      t.notMatch((r as Error).message, /Set-Cookie/, 'the message names the character, never the value');
    }
  }
  t.equal(run('request', 'x\u010d\u010ay'), 'x\u010d\u010ay', 'above U+00FF towards a backend: kept as text');
  t.equal(run('response', 'x\u010d\u010ay'), 'x\u010d\u010ay', 'above U+00FF towards a client: kept as text');
  t.equal(run('response', 'caf\u00e9\tok'), 'caf\u00e9\tok', 'latin1 and HTAB pass');
  // In a head, the text goes as its UTF-8 bytes: U+010A is C4 8A, never a bare LF.
  const m = message('request', { body: JSON.stringify({ h: 'x\u010ay' }), contentType: 'application/json', headers: [['Accept', 'caf\u00e9']] });
  reg.run('t', m);
  t.same(m.headers.headEntries(), [['Accept', 'caf\u00e9'], ['X-From-Body', 'x\u00c4\u008ay']], 'set values as UTF-8 bytes; the message\'s own kept byte for byte');
});

t.test('a fault sequence that builds an unsafe header falls back to the next one, never sends it', async (t) => {
  const reg = registryOf({ fault: seq('fault', `<header name="X-Detail" expression="$ctx:ERROR_DETAIL" scope="transport"/>
    <payloadFactory media-type="json"><format>{"f":1}</format><args/></payloadFactory><send/>`) });
  const r = renderFault(reg, { code: 400, description: 'bad\r\nSet-Cookie: x=1' });
  t.equal(r.renderedBy, 'builtin', 'the built-in fault body');
  t.notOk(r.headers.some(([k]) => /x-detail|set-cookie/i.test(k)), 'and none of the built header');
  const ok = renderFault(reg, { code: 400, description: 'plain detail' });
  t.equal(ok.renderedBy, 'fault');
  t.ok(ok.headers.some(([k, v]) => k === 'X-Detail' && v === 'plain detail'));
});

t.test('a request flow answering the client sends the headers it set, not the request\'s', async (t) => {
  const reg = single('<header name="X-Set" value="1"/><respond/>');
  const m = message('request', { headers: [['Authorization', 'Basic c2VjcmV0'], ['Cookie', 'a=b'], ['X-Custom', 'c']] });
  reg.run('t', m);
  t.same(m.toResponse(200, true).headers, [['X-Set', '1']], 'own headers only');
  t.same(m.toResponse(200).headers.map(([k]) => k), ['Authorization', 'Cookie', 'X-Custom', 'X-Set'], 'all, when reflection is asked for');
});
