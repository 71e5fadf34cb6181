import t from 'tap';
import { requireBuild } from '../fixtures/sluice-process.js';
import { request as kmRequest, basic } from '../fixtures/keymanager-harness.js';
import { eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { ADMIN, adminClient, tokenRequest } from './helpers/node.js';
import { controlPlaneCertificate, controlPlaneConf, startProcessNode, workerConf } from './helpers/cluster.js';

requireBuild();

/**
 * A secured API across nodes: the token comes from the control plane's resident key manager, the
 * gateway-worker validates it against the JWKS served at the origin of its [apim.key_manager] service_url
 * (https://<control plane>:9443/oauth2/jwks), applications and subscriptions reach it through the event
 * hub, and revocations too. Needs the gateway's security phase (authentication, subscription check).
 */
t.test('a secured API through a gateway-worker: token from the control plane, subscription and revocation followed', async (t) => {
  const cert = controlPlaneCertificate(t);
  const backend = await echoBackend(t);
  const cp = await startProcessNode(t, controlPlaneConf(cert.keyStore), 'servlet');
  const gw = await startProcessNode(t, workerConf(cp.https, cert.trust), 'gateway');
  const admin = adminClient(cp.https);
  const api = await admin.post(`${ADMIN}/apis`, {
    name: 'Guarded', context: '/guarded', version: '1.0.0', lifecycle_state: 'PUBLISHED', endpoints: { production: backend.url },
    resources: [{ verb: 'GET', uri_template: '/*', auth_type: 'Application & Application User' }],
  });
  t.equal(api.status, 201, api.text);
  const app = await admin.post(`${ADMIN}/applications`, { name: 'GuardApp', keys: [{ key_type: 'PRODUCTION', grant_types: ['client_credentials'] }], subscriptions: [{ api: 'Guarded:1.0.0', throttling_policy: 'Unlimited' }] });
  t.equal(app.status, 201, 'application created');
  const key = app.json.keys[0] as { client_id: string; client_secret: string };
  const token = await tokenRequest(cp.https, key.client_id, key.client_secret);
  t.equal(token.status, 200);
  const bearer = { authorization: `Bearer ${token.json.access_token}` };

  let last = '';
  await eventually(async () => { const r = await request(`${gw.gw}/guarded/1.0.0/x`, { headers: bearer }); last = `${r.status} ${r.text} ${String(r.headers['www-authenticate'])}`; return r.status === 200; }, 'the call with a token through the worker', 5000).catch((e: Error) => { throw new Error(`${e.message}; last answer: ${last}`); });
  const anonymous = await request(`${gw.gw}/guarded/1.0.0/x`);
  t.equal(anonymous.status, 401, 'no token: 401');
  t.equal(faultOf(anonymous)?.code, 900902);

  const revoke = await kmRequest(`${cp.https}/oauth2/revoke`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(key.client_id, key.client_secret) },
    body: new URLSearchParams({ token: token.json.access_token }).toString(),
  });
  t.equal(revoke.status, 200);
  await eventually(async () => faultOf(await request(`${gw.gw}/guarded/1.0.0/x`, { headers: bearer }))?.code === 900901, 'the revocation on the worker', 3000);

  const second = await tokenRequest(cp.https, key.client_id, key.client_secret);
  const bearer2 = { authorization: `Bearer ${second.json.access_token}` };
  await eventually(async () => (await request(`${gw.gw}/guarded/1.0.0/x`, { headers: bearer2 })).status === 200, 'a new token works', 5000);
  t.equal((await admin.post(`${ADMIN}/applications/GuardApp/subscriptions/Guarded:1.0.0/block`)).status, 200);
  await eventually(async () => faultOf(await request(`${gw.gw}/guarded/1.0.0/x`, { headers: bearer2 }))?.code === 900907, 'the blocked subscription on the worker', 3000);
  t.equal((await admin.del(`${ADMIN}/applications/GuardApp`)).status, 204);
  await eventually(async () => (await request(`${gw.gw}/guarded/1.0.0/x`, { headers: bearer2 })).status === 401, 'the deleted application\'s token refused on the worker', 3000);
  t.pass('application deletion revoked its tokens on the worker');
});
