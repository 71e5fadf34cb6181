// validate-body in-process: a JSON or XML body is read whole and parsed before it goes on; a malformed one
// is 400 with where it broke, and a body over the cap is 413 without being held.
import t from 'tap';
import { ValidateBodyPhase } from '../../../../engine/gateway/phases/validate-body.js';
import { GatewayError } from '../../../../errors/index.js';
import { inject, testRuntime } from '../../../helpers/inject.js';

const rt = testRuntime([new ValidateBodyPhase(true, true)]);

t.test('well-formed JSON and XML go on, with the body still there for the sender', async (t) => {
  const j = inject(rt, { method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
  t.ok(j.reachedTerminal);
  t.equal(j.call.bufferedBody().toString(), '{"a":[1,2]}');
  const x = inject(rt, { method: 'POST', path: '/x', headers: { 'content-type': 'application/xml' }, body: '<a><b/></a>' });
  t.ok(x.reachedTerminal);
});

t.test('malformed JSON or XML: 400 saying where', async (t) => {
  const j = inject(rt, { method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body: '{"a":' });
  t.equal(j.client.written.status, 400);
  t.match(j.fault, { code: GatewayError.BODY_NOT_VALID.code, description: /^Malformed JSON payload/ });
  const x = inject(rt, { method: 'POST', path: '/x', headers: { 'content-type': 'text/xml' }, body: '<a><b></a>' });
  t.equal(x.client.written.status, 400);
  t.match(x.fault?.description, /^Malformed XML payload: .*\(line 1\)/);
});

t.test('other content types and bodiless calls are not read', async (t) => {
  t.ok(inject(rt, { method: 'POST', path: '/x', headers: { 'content-type': 'text/plain' }, body: '{"a":' }).reachedTerminal);
  t.ok(inject(rt, { path: '/x', headers: { 'content-type': 'application/json' } }).reachedTerminal);
});

t.test('a body over the cap of what is read whole: 413, and nothing held', async (t) => {
  const big = '[' + '1,'.repeat(600 * 1024) + '1]';
  const r = inject(rt, { method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body: big });
  t.equal(r.client.written.status, 413);
  t.equal(r.fault?.code, GatewayError.CONTENT_TOO_LARGE.code);
  t.equal(r.call.bufferedBody().length, 0, 'the body was dropped, not kept');
});
