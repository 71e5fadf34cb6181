import t from 'tap';
import { startSecured, appToml, securedApiToml, basic } from '../helpers/secured.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { freePort } from '../helpers/home.js';

t.test('the gateway fronts the token API: /token and /revoke reach the key manager', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('acme-client', 'acme-secret') };
  const tok = await request(s.url('/token'), { method: 'POST', headers: form, body: 'grant_type=client_credentials' });
  t.equal(tok.status, 200);
  const at = (tok.json as { access_token: string }).access_token;
  t.equal((await s.call('/secure/1.0.0/x', at)).status, 200, 'the token works');
  const bad = await request(s.url('/token'), { method: 'POST', headers: { ...form, authorization: basic('acme-client', 'wrong') }, body: 'grant_type=client_credentials' });
  t.equal(bad.status, 401, "the key manager's OAuth errors pass through");
  t.equal((bad.json as { error: string }).error, 'invalid_client');
  const rv = await request(s.url('/revoke'), { method: 'POST', headers: form, body: `token=${at}` });
  t.equal(rv.status, 200);
  t.equal(faultOf(await s.call('/secure/1.0.0/x', at))?.code, 900901, 'revoked through the gateway');
});

t.test('a token API that cannot be reached answers through _token_fault_', async (t) => {
  const dead = await freePort();
  const s = await startSecured(t, {
    conf: { apim: { key_manager: { introspection_url: `https://127.0.0.1:${dead}/oauth2/introspect` } } },
    files: { 'repository/deployment/server/synapse-configs/default/sequences/_token_fault_.xml': `<sequence xmlns="http://ws.apache.org/ns/synapse" name="_token_fault_">
  <payloadFactory media-type="json"><format>{"error":"temporarily_unavailable","code":$1}</format><args><arg evaluator="xml" expression="$ctx:ERROR_CODE"/></args></payloadFactory>
  <property name="messageType" value="application/json" scope="axis2"/>
  <send/>
</sequence>` },
  });
  const r = await request(s.url('/token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
  t.equal(r.status, 503);
  t.same(r.json, { error: 'temporarily_unavailable', code: 101503 }, 'rendered by the operator\'s _token_fault_');
});
