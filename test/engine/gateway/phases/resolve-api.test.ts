// resolve-api in-process: the API by context and version, the resource by verb and template, and each of
// its answers (engine/gateway/phases/resolve-api.ts).
import t from 'tap';
import { ResolveApiPhase } from '../../../../engine/gateway/phases/resolve-api.js';
import { ApiHandlerError, GatewayError } from '../../../../errors/index.js';
import { apiDef, deployedApis, resource } from '../../../helpers/deployed.js';
import { inject, testRuntime } from '../../../helpers/inject.js';

const deployed = deployedApis([
  apiDef({ name: 'Pizza', context: '/pizza', resources: [resource('GET', '/menu'), resource('POST', '/order/{id}')] }),
  apiDef({ name: 'Blocked', context: '/blocked', lifecycleState: 'BLOCKED' }),
  apiDef({ name: 'Draft', context: '/draft', lifecycleState: 'CREATED' }),
], 'https://127.0.0.1:9443');
const rt = testRuntime([new ResolveApiPhase(deployed)]);

t.test('a path of a deployed API and resource continues with the API, resource, path below the context and endpoint', async (t) => {
  const r = inject(rt, { method: 'POST', path: '/pizza/1.0.0/order/42', body: '{}' });
  t.ok(r.reachedTerminal);
  t.equal(r.call.api?.def.name, 'Pizza');
  t.equal(r.call.resource?.def.uriTemplate, '/order/{id}');
  t.equal(r.call.resourcePath, '/order/42');
  t.equal(r.call.target?.url, 'http://127.0.0.1:9');
  t.ok(r.call.endpoints, 'the endpoints of the deployment it was routed on');
});

t.test('no API: 404 through main', async (t) => {
  const r = inject(rt, { path: '/nothing/1.0.0/x' });
  t.equal(r.client.written.status, 404);
  // The shipped main sequence writes its own description (docs/errors.md).
  t.match(r.fault, { code: GatewayError.NO_MATCHING_API.code, message: 'Not Found', description: /No API matches the request path/ });
});

t.test('no resource for the verb: 900906 with the seed\'s message', async (t) => {
  const r = inject(rt, { method: 'DELETE', path: '/pizza/1.0.0/menu' });
  t.equal(r.client.written.status, 403);
  t.match(r.fault, { code: 900906, message: ApiHandlerError.NO_MATCHING_RESOURCE.message, description: /DELETE \/menu/ });
});

t.test('a BLOCKED API answers 700700; an unpublished one 404', async (t) => {
  const b = inject(rt, { path: '/blocked/1.0.0/menu' });
  t.equal(b.client.written.status, 503);
  t.equal(b.fault?.code, 700700);
  const d = inject(rt, { path: '/draft/1.0.0/menu' });
  t.equal(d.client.written.status, 404);
  t.equal(d.fault?.code, GatewayError.API_NOT_PUBLISHED.code);
});

t.test('a path that climbed above the context is 400 and closes the connection', async (t) => {
  // minDepth is the front door's: `/pizza/1.0.0/../../pizza/1.0.0/menu` went down to the root on its way.
  const climbed = inject(rt, { path: '/pizza/1.0.0/menu', minDepth: 0 });
  t.equal(climbed.client.written.status, 400);
  t.equal(climbed.fault?.description, GatewayError.PATH_ABOVE_CONTEXT.description);
  t.ok(climbed.client.written.closeAfter, 'Connection: close');
  t.ok(inject(rt, { path: '/pizza/1.0.0/menu', minDepth: 2 }).reachedTerminal, 'control: a climb that stays within the context passes');
});

t.test('the gateway\'s /token takes POST only (405 with Allow through _token_fault_), and routes POST to the key manager', async (t) => {
  const get = inject(rt, { path: '/token' });
  t.equal(get.client.written.status, 405);
  t.same(get.client.written.headers.find(([k]) => k === 'allow'), ['allow', 'POST']);
  const post = inject(rt, { method: 'POST', path: '/token', body: 'grant_type=client_credentials' });
  t.ok(post.reachedTerminal);
  t.equal(post.call.resourcePath, '/oauth2/token');
});
