// renderFault always gives the client a fault: a missing, failing, dropping or empty sequence falls back to
// `fault`, then to the built-in JSON body. Request headers are never echoed.
import t from 'tap';
import { SequenceRegistry, builtinFaultBody, renderFault } from '../../mediation/index.js';
import { captureLogger, json, registryOf, seq } from './fixtures/helpers.js';

const BODY = { fault: { code: 900901, type: 'Status report', message: 'Invalid Credentials', description: 'Invalid Credentials. Make sure you have provided the correct security credentials' } };

t.test('a handler that fails at run time falls back to fault', async (t) => {
  const { logger, records } = captureLogger();
  const reg = registryOf({
    _auth_failure_handler_: seq('_auth_failure_handler_', '<property name="n" expression="$ctx:ERROR_MESSAGE" type="INTEGER"/><send/>'),
  }, logger);
  const res = renderFault(reg, { code: 900901 });
  t.equal(res.renderedBy, 'fault');
  t.equal(res.status, 401, 'the status the caller (the table) suggested');
  t.same(json(res.body), BODY);
  t.ok(records.some((r) => r.level === 50 && /fault sequence _auth_failure_handler_ failed/.test(r.msg)), 'logged');
});

t.test('when fault fails too, the built-in body', async (t) => {
  const reg = registryOf({
    _auth_failure_handler_: seq('_auth_failure_handler_', '<payloadFactory media-type="json"><format>{"broken":$1</format><args><arg value="1"/></args></payloadFactory><send/>'),
    fault: seq('fault', '<property name="n" expression="$ctx:ERROR_MESSAGE" type="DOUBLE"/><send/>'),
  });
  const res = renderFault(reg, { code: 900901, headers: [['WWW-Authenticate', 'Bearer realm="sluice"']] });
  t.equal(res.renderedBy, 'builtin');
  t.equal(res.status, 401);
  t.same(res.headers, [['WWW-Authenticate', 'Bearer realm="sluice"'], ['Content-Type', 'application/json']]);
  t.same(json(res.body), BODY);
  t.equal(res.body!.toString(), builtinFaultBody(900901, BODY.fault.message, BODY.fault.description).toString());
});

t.test('a sequence that drops, or sends no body, still gives the client the default body', async (t) => {
  const { logger, records } = captureLogger();
  const drop = registryOf({ _auth_failure_handler_: seq('_auth_failure_handler_', '<property name="HTTP_SC" value="499" scope="axis2"/><drop/>') }, logger);
  const r1 = renderFault(drop, { code: 900901 });
  t.equal(r1.renderedBy, 'builtin');
  t.equal(r1.status, 499, 'what the sequence set is kept');
  t.same(json(r1.body), BODY);
  t.ok(records.some((r) => /dropped the fault without sending a response/.test(r.msg)));
  const empty = registryOf({ _auth_failure_handler_: seq('_auth_failure_handler_', '<header name="X-A" value="1" scope="transport"/><send/>') });
  const r2 = renderFault(empty, { code: 900901 });
  t.equal(r2.renderedBy, 'builtin');
  t.same(r2.headers, [['X-A', '1'], ['Content-Type', 'application/json']]);
  const noBody = registryOf({ _auth_failure_handler_: seq('_auth_failure_handler_', '<property name="NO_ENTITY_BODY" value="true" scope="axis2"/><send/>') });
  const r3 = renderFault(noBody, { code: 900901 });
  t.equal(r3.body, null, 'NO_ENTITY_BODY asked for no body: none');
  t.equal(r3.renderedBy, '_auth_failure_handler_');
});

t.test('a named sequence that is not deployed: fault renders it', async (t) => {
  const res = renderFault(SequenceRegistry.builtins(), { code: 900901, sequence: 'acme_not_there' });
  t.equal(res.renderedBy, 'fault');
  t.equal(res.status, 401);
});

t.test('the built-in body escapes what it carries', async (t) => {
  const body = builtinFaultBody(1, 'a"b', 'line\nnext \u0000');
  t.same(JSON.parse(body.toString()), { fault: { code: 1, type: 'Status report', message: 'a"b', description: 'line\nnext \u0000' } });
});

t.test('request headers never reach a fault response; only the headers the gateway passes', async (t) => {
  // A handler that tries to copy every kind of request detail it could reach.
  const reg = registryOf({
    _auth_failure_handler_: seq('_auth_failure_handler_', `
      <header name="X-Copy-Auth" expression="$trp:Authorization" scope="transport"/>
      <header name="X-Copy-Cookie" expression="get-property('transport', 'Cookie')" scope="transport"/>
      <payloadFactory media-type="json"><format>{"auth":"$1"}</format><args><arg expression="$trp:Authorization"/></args></payloadFactory>
      <send/>`),
  });
  const res = renderFault(reg, { code: 900901 }, { method: 'GET', path: '/pizzashack/1.0.0/menu' });
  t.same(res.headers, [['Content-Type', 'application/json']]);
  t.same(json(res.body), { auth: '' });
});
