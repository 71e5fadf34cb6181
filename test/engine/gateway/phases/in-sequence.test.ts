// in-sequence in-process: the API's in sequence on headers only or on the body held whole; RESPOND, DROP,
// a sequence that is missing or fails, and a header no head may carry (engine/gateway/phases/in-sequence.ts).
import t from 'tap';
import { InSequencePhase } from '../../../../engine/gateway/phases/in-sequence.js';
import { ResolveApiPhase } from '../../../../engine/gateway/phases/resolve-api.js';
import { ApiMediation } from '../../../../engine/gateway/api-mediation.js';
import { HeaderRules } from '../../../../transport/header-rules.js';
import { GatewayError } from '../../../../errors/index.js';
import { SequenceRegistry, defaultCodecs, parseSequence, type SequenceSet } from '../../../../mediation/index.js';
import { apiDef, deployedApis, resource } from '../../../helpers/deployed.js';
import { inject, testRuntime } from '../../../helpers/inject.js';
import pino from 'pino';

const NS = 'xmlns="http://ws.apache.org/ns/synapse"';
const seq = (name: string, body: string) => parseSequence(`<sequence ${NS} name="${name}">${body}</sequence>`, `${name}.xml`);
const set: SequenceSet = {
  generation: 1,
  sequences: [
    seq('addHeader', '<header name="X-Added" value="yes"/>'),
    seq('rewriteBody', '<payloadFactory media-type="json"><format>{"wrapped":$1}</format><args><arg expression="json-eval($)"/></args></payloadFactory>'),
    seq('answer', '<payloadFactory media-type="json"><format>{"from":"sequence"}</format><args/></payloadFactory><respond/>'),
    seq('dropIt', '<drop/>'),
    seq('badHeader', '<header name="X-From-Body" expression="json-eval($.h)" scope="transport"/>'),
  ],
};
const apis = ['addHeader', 'rewriteBody', 'answer', 'dropIt', 'badHeader', 'missing'].map((name) =>
  apiDef({ name, context: `/${name.toLowerCase()}`, inSequence: name, resources: [resource('POST', '/*'), resource('GET', '/*')] }));
const deployed = deployedApis(apis);
const log = pino({ level: 'silent' });
const codecs = defaultCodecs();
const registry = SequenceRegistry.compile(set, { logger: log, codecs });
const mediation = new ApiMediation(() => registry, codecs, log);
mediation.deploy(set);
const rules = new HeaderRules({ userAgentPreserve: false, serverPreserve: false, disableKeepAlive: false, warnOnHttp500: [], excludeFromClientResponse: [], excludeFromBackendRequest: [] });
const rt = testRuntime([new ResolveApiPhase(deployed), new InSequencePhase(mediation, rules)], { sequences: set });

t.test('a sequence on headers only: the request headers are rewritten, the body keeps streaming', async (t) => {
  const r = inject(rt, { method: 'POST', path: '/addheader/1.0.0/x', headers: { 'content-type': 'text/plain' }, body: 'abc' });
  t.ok(r.reachedTerminal);
  t.equal(r.call.header('x-added'), 'yes');
  t.ok(r.call.headersMediated, 'marked for the check before the backend head is written');
  t.notOk(r.call.bufferWholeBody, 'the body was not held whole');
});

t.test('a sequence that reads the body gets it whole and may replace it', async (t) => {
  const r = inject(rt, { method: 'POST', path: '/rewritebody/1.0.0/x', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  t.ok(r.reachedTerminal);
  t.same(JSON.parse(r.call.bufferedBody().toString()), { wrapped: { a: 1 } });
});

t.test('RESPOND answers from the sequence; DROP answers 202', async (t) => {
  const a = inject(rt, { path: '/answer/1.0.0/x' });
  t.equal(a.client.written.status, 200);
  t.same(JSON.parse(a.client.written.body.toString()), { from: 'sequence' });
  t.notOk(a.reachedTerminal);
  const d = inject(rt, { path: '/dropit/1.0.0/x' });
  t.equal(d.client.written.status, 202);
});

t.test('a sequence that is not deployed: 101510 naming it', async (t) => {
  const r = inject(rt, { path: '/missing/1.0.0/x' });
  t.equal(r.client.written.status, 500);
  t.match(r.fault, { code: GatewayError.SEQUENCE_NOT_DEPLOYED.code, description: /in sequence missing of this API is not deployed/ });
});

t.test('control: a header built from a harmless body value goes on', async (t) => {
  const r = inject(rt, { method: 'POST', path: '/badheader/1.0.0/x', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ h: 'plain' }) });
  t.ok(r.reachedTerminal);
  t.equal(r.call.header('x-from-body'), 'plain');
});

t.test('a header the sequence builds that no head may carry: 400, nothing goes on', async (t) => {
  const r = inject(rt, { method: 'POST', path: '/badheader/1.0.0/x', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ h: 'a\r\nInjected: 1' }) });
  t.equal(r.client.written.status, 400);
  t.equal(r.fault?.description, GatewayError.UNSAFE_REQUEST_HEADER.description);
  t.notOk(r.reachedTerminal);
});
