import t from 'tap';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, faultOf } from '../helpers/backends.js';
import { freePort } from '../helpers/home.js';

t.test('opaque tokens are validated by the key manager (introspection), cached, and revoked like JWTs', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', tokenType: 'OPAQUE', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  t.equal(at.split('.').length, 1, 'an opaque token');
  t.equal((await s.call('/secure/1.0.0/x', at)).status, 200);
  t.equal((await s.call('/secure/1.0.0/x', at)).status, 200, 'again (from the cache)');
  t.equal(faultOf(await s.call('/secure/1.0.0/x', 'not-a-token-at-all'))?.code, 900901, 'an unknown opaque token');
  t.equal((await s.revoke('acme-client', 'acme-secret', at)).status, 200);
  t.equal(faultOf(await s.call('/secure/1.0.0/x', at))?.code, 900901, 'revoked');
});

t.test('a key manager that cannot be reached is 900900 with 500', async (t) => {
  const be = await echoBackend(t);
  const dead = await freePort();
  const s = await startSecured(t, {
    conf: { apim: { key_manager: { introspection_url: `https://127.0.0.1:${dead}/oauth2/introspect` } } },
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', tokenType: 'OPAQUE', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  const r = await s.call('/secure/1.0.0/x', at);
  t.equal(r.status, 500);
  t.equal(faultOf(r)?.code, 900900);
  t.equal(faultOf(r)?.message, 'Unclassified Authentication Failure');
});
