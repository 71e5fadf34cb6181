import t from 'tap';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, faultOf } from '../helpers/backends.js';
import { loadConfig } from '../../conf/loader.js';
import { startNode } from '../../engine/runtime/node.js';

t.test('a revoked token fails on the very next call, cached or not, on every io thread, and after a restart', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { passthru_http: { io_threads_per_reactor: 2 } },
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const cached = (await s.token('acme-client', 'acme-secret')).accessToken!;
  const fresh = (await s.token('acme-client', 'acme-secret')).accessToken!;
  // Warm the cache of both io threads: new connections spread over them.
  for (let i = 0; i < 8; i++) t.equal((await s.call('/secure/1.0.0/x', cached)).status, 200);
  t.equal((await s.revoke('acme-client', 'acme-secret', cached, 'access_token')).status, 200);
  for (let i = 0; i < 8; i++) {
    const r = await s.call('/secure/1.0.0/x', cached);
    t.equal(faultOf(r)?.code, 900901, `revoked token refused at once (call ${i})`);
  }
  t.equal((await s.revoke('acme-client', 'acme-secret', fresh)).status, 200);
  t.equal(faultOf(await s.call('/secure/1.0.0/x', fresh))?.code, 900901, 'a token revoked before its first use is refused');

  // A restarted node remembers: it loads the revoked tokens that have not expired yet.
  await s.stop();
  const node = await startNode(loadConfig(s.home.dir), { handleSignals: false });
  t.teardown(() => node.stop());
  const r = await s.call('/secure/1.0.0/x', cached);
  t.equal(faultOf(r)?.code, 900901, 'still revoked after a restart');
});
