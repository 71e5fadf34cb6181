// Each expression kind: get-property (one and two arguments, facts, SYSTEM_DATE / SYSTEM_TIME), $ctx, $axis2,
// $trp, json-eval paths on JSON and XML bodies, literals, concat.
import t from 'tap';
import { MediationRuntimeError } from '../../mediation/index.js';
import { message, single } from './fixtures/helpers.js';

function evaluate(expr: string, init: Parameters<typeof message>[1] = {}, dir: 'request' | 'fault' = 'request'): unknown {
  const reg = single(`<property name="out" expression="${expr.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"/>`);
  const m = message(dir, init);
  reg.run('t', m);
  return m.properties.get('out');
}

t.test('get-property with one argument: the default scope, then the call facts', async (t) => {
  t.equal(evaluate("get-property('ERROR_MESSAGE')", { properties: [['ERROR_MESSAGE', 'Invalid Credentials']] }), 'Invalid Credentials');
  const facts = {
    apiName: 'PizzaShackAPI', apiVersion: '1.0.0', apiContext: '/pizzashack', userId: 'admin@carbon.super',
    applicationName: 'PizzaApp', applicationId: 'app-1', consumerKey: 'ck', keyType: 'PRODUCTION', resource: '/menu',
    method: 'GET', path: '/pizzashack/1.0.0/menu?x=1', clientIp: '203.0.113.9', apiPublisher: 'admin',
  };
  const want: [string, string][] = [
    ['api.ut.api', 'PizzaShackAPI'], ['api.ut.version', '1.0.0'], ['api.ut.context', '/pizzashack/1.0.0'],
    ['api.ut.api_version', 'PizzaShackAPI:v1.0.0'], ['api.ut.userId', 'admin@carbon.super'],
    ['api.ut.application.name', 'PizzaApp'], ['api.ut.application.id', 'app-1'], ['api.ut.consumerKey', 'ck'],
    ['API_KEY_TYPE', 'PRODUCTION'], ['API_ELECTED_RESOURCE', '/menu'], ['api.ut.HTTP_METHOD', 'GET'],
    ['REST_FULL_REQUEST_PATH', '/pizzashack/1.0.0/menu?x=1'], ['SYNAPSE_REST_API', 'admin--PizzaShackAPI:v1.0.0'],
  ];
  for (const [name, value] of want) t.equal(evaluate(`get-property('${name}')`, { facts }), value, name);
  t.equal(evaluate("get-property('api.ut.api')", { facts, properties: [['api.ut.api', 'overridden']] }), 'overridden', 'a property set on the message wins');
  t.equal(evaluate("get-property('nothing')"), undefined);
});

t.test('get-property with a scope', async (t) => {
  const init = { properties: [['X', 'default-x']] as [string, string][], axis2: [['HTTP_SC', 401]] as [string, number][], headers: [['X-Correlation-ID', 'c-1']] as [string, string][] };
  t.equal(evaluate("get-property('default', 'X')", init), 'default-x');
  t.equal(evaluate("get-property('axis2', 'HTTP_SC')", init), '401');
  t.equal(evaluate("get-property('transport', 'x-correlation-id')", init), 'c-1');
  t.equal(evaluate('get-property("axis2","HTTP_METHOD")', { facts: { method: 'DELETE' } }), 'DELETE', 'HTTP_METHOD from the facts');
});

t.test('$ctx:, $axis2:, $trp:', async (t) => {
  t.equal(evaluate('$ctx:ERROR_CODE', { properties: [['ERROR_CODE', 900902]] }), '900902');
  t.equal(evaluate('$ctx:api.ut.application.name', { facts: { applicationName: 'A' } }), 'A');
  t.equal(evaluate('$axis2:messageType', { axis2: [['messageType', 'application/json']] }), 'application/json');
  t.equal(evaluate('$axis2:REMOTE_ADDR', { facts: { clientIp: '198.51.100.2' } }), '198.51.100.2');
  t.equal(evaluate('$trp:Content-Type', { headers: [['content-type', 'text/plain']] }), 'text/plain');
});

t.test('SYSTEM_DATE and SYSTEM_TIME', async (t) => {
  const before = Date.now();
  const ms = Number(evaluate("get-property('SYSTEM_TIME')"));
  t.ok(ms >= before && ms <= Date.now());
  t.match(evaluate("get-property('SYSTEM_DATE')"), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const d = new Date();
  const want = `${d.getFullYear()}/${String(d.getMonth() + 1).padStart(2, '0')}/${String(d.getDate()).padStart(2, '0')}`;
  t.equal(evaluate("get-property('SYSTEM_DATE', 'yyyy/MM/dd')"), want);
  t.match(evaluate(`get-property('SYSTEM_DATE', "yyyy-MM-dd'T'HH:mm:ss.SSSXXX")`), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
  t.match(evaluate("get-property('MessageID')"), /^urn:uuid:[0-9a-f-]{36}$/);
});

t.test('json-eval on a JSON body', async (t) => {
  const body = JSON.stringify({ a: { b: 'x', n: 3, t: true, z: null, list: [{ b: 'first' }, { b: 'second' }], 'odd key': 'k' } });
  const init = { body, contentType: 'application/json; charset=utf-8' };
  t.equal(evaluate('json-eval($.a.b)', init), 'x');
  t.equal(evaluate('json-eval($.a.n)', init), '3');
  t.equal(evaluate('json-eval($.a.t)', init), 'true');
  t.equal(evaluate('json-eval($.a.z)', init), 'null');
  t.equal(evaluate('json-eval($.a.list[0].b)', init), 'first');
  t.equal(evaluate("json-eval($.a.list[1]['b'])", init), 'second');
  t.equal(evaluate("json-eval($['a']['odd key'])", init), 'k');
  t.equal(evaluate('json-eval($.a.list[0])', init), '{"b":"first"}', 'objects as JSON text');
  t.equal(evaluate('json-eval($.a.nope.deeper)', init), undefined);
  t.equal(evaluate('json-eval($.a.list[9])', init), undefined);
  t.equal(evaluate('json-eval($)', { body: '"just a string"', contentType: 'application/json' }), 'just a string');
  t.equal(evaluate('json-eval($.a)'), undefined, 'no body: no value');
});

t.test('json-eval reads XML, SOAP and form bodies through their builders', async (t) => {
  t.equal(evaluate('json-eval($.order.id)', { body: '<order><id>12</id></order>', contentType: 'application/xml' }), '12');
  const soap = '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><m:getQuote xmlns:m="urn:q"><m:symbol>IBM</m:symbol></m:getQuote></s:Body></s:Envelope>';
  t.equal(evaluate('json-eval($.getQuote.symbol)', { body: soap, contentType: 'text/xml' }), 'IBM');
  t.equal(evaluate('json-eval($.grant_type)', { body: 'grant_type=refresh_token&x=1', contentType: 'application/x-www-form-urlencoded' }), 'refresh_token');
});

t.test('a body that does not parse fails the mediator at run time', async (t) => {
  const err = t.throws(() => evaluate('json-eval($.a)', { body: '{oops', contentType: 'application/json' })) as unknown as MediationRuntimeError;
  t.type(err, MediationRuntimeError);
  t.match(err.reason, /malformed JSON body/);
});

t.test('literals, numbers, concat, string()', async (t) => {
  t.equal(evaluate("'single'"), 'single');
  t.equal(evaluate('"double"'), 'double');
  t.equal(evaluate('42'), '42');
  t.equal(evaluate("concat('Bearer ', $ctx:tok, '!')", { properties: [['tok', 'abc']] }), 'Bearer abc!');
  t.equal(evaluate("fn:concat('a', $ctx:missing, 'b')"), 'ab');
  t.equal(evaluate('string($ctx:x)', { properties: [['x', 'y']] }), 'y');
  t.equal(evaluate("boolean($ctx:x)", { properties: [['x', 'y']] }), 'true', 'a boolean expression as a string');
});
