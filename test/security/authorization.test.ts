import t from 'tap';
import { startSecured, appToml, securedApiToml, APPS_DIR } from '../helpers/secured.js';
import { echoBackend, faultOf, type SeenRequest } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';

t.test('subscriptions, scopes, token types and key types decide who may call what', async (t) => {
  const prod = await echoBackend(t);
  const sandbox = await echoBackend(t);
  const s = await startSecured(t, {
    apis: {
      both: securedApiToml({ name: 'Both', context: '/both', production: `${prod.url}/p`, sandbox: `${sandbox.url}/s` }),
      prodonly: securedApiToml({ name: 'ProdOnly', context: '/prodonly', production: prod.url }),
      sandonly: securedApiToml({ name: 'SandOnly', context: '/sandonly', sandbox: sandbox.url }),
      users: securedApiToml({ name: 'UsersOnly', context: '/users', production: prod.url, authType: 'Application User' }),
      apps: securedApiToml({ name: 'AppsOnly', context: '/apps', production: prod.url, authType: 'Application' }),
      blocked: securedApiToml({ name: 'Blocked', context: '/blocked', production: prod.url }),
      held: securedApiToml({ name: 'Held', context: '/held', production: prod.url }),
      prodblocked: securedApiToml({ name: 'ProdBlocked', context: '/prodblocked', production: prod.url, sandbox: sandbox.url }),
    },
    apps: {
      acme: appToml({ name: 'AcmeApp', keys: [
        { id: 'acme-prod', secret: 'p', scopes: ['acme:read', 'acme:admin'] },
        { id: 'acme-sand', secret: 's', keyType: 'SANDBOX' },
      ], subscriptions: [
        { api: 'Both:1.0.0' }, { api: 'ProdOnly:1.0.0' }, { api: 'SandOnly:1.0.0' }, { api: 'UsersOnly:1.0.0' }, { api: 'AppsOnly:1.0.0' },
        { api: 'Blocked:1.0.0', state: 'BLOCKED' }, { api: 'Held:1.0.0', state: 'ON_HOLD' }, { api: 'ProdBlocked:1.0.0', state: 'PROD_ONLY_BLOCKED' },
      ] }),
      lonely: appToml({ name: 'Lonely', keys: [{ id: 'lonely', secret: 'l' }] }),
    },
  });
  const appTok = (await s.token('acme-prod', 'p', { scope: 'acme:read' })).accessToken!;
  const adminTok = (await s.token('acme-prod', 'p', { scope: 'acme:admin' })).accessToken!;
  const userTok = (await s.token('acme-prod', 'p', { grant_type: 'password', username: 'admin', password: 'admin' })).accessToken!;
  const sandTok = (await s.token('acme-sand', 's')).accessToken!;
  const lonelyTok = (await s.token('lonely', 'l')).accessToken!;
  t.ok(appTok && adminTok && userTok && sandTok && lonelyTok, 'tokens issued');

  const expect = async (what: string, path: string, token: string, status: number, code?: number) => {
    const r = await s.call(path, token);
    t.equal(r.status, status, `${what}: ${status}`);
    if (code) t.equal(faultOf(r)?.code, code, `${what}: ${code}`);
    return r;
  };
  let r = await expect('production key', '/both/1.0.0/x', appTok, 200);
  t.equal((r.json as SeenRequest).url, '/p/x', 'routed to the production endpoint');
  r = await expect('sandbox key', '/both/1.0.0/x', sandTok, 200);
  t.equal((r.json as SeenRequest).url, '/s/x', 'routed to the sandbox endpoint');
  r = await expect('sandbox key, production-only API', '/prodonly/1.0.0/x', sandTok, 401, 900901);
  t.match(faultOf(r)?.description, /[Ss]andbox/);
  r = await expect('production key, sandbox-only API', '/sandonly/1.0.0/x', appTok, 401, 900901);
  t.match(faultOf(r)?.description, /[Pp]roduction/);
  await expect('no subscription', '/both/1.0.0/x', lonelyTok, 403, 900908);
  await expect('subscription blocked', '/blocked/1.0.0/x', appTok, 401, 900907);
  await expect('subscription on hold', '/held/1.0.0/x', appTok, 401, 900909);
  await expect('PROD_ONLY_BLOCKED, production key', '/prodblocked/1.0.0/x', appTok, 401, 900907);
  await expect('PROD_ONLY_BLOCKED, sandbox key', '/prodblocked/1.0.0/x', sandTok, 200);
  await expect('scope not granted', '/both/1.0.0/scoped', appTok, 403, 900910);
  await expect('scope granted', '/both/1.0.0/scoped', adminTok, 200);
  await expect('application token on a user-only resource', '/users/1.0.0/x', appTok, 401, 900905);
  await expect('user token on a user-only resource', '/users/1.0.0/x', userTok, 200);
  await expect('user token on an application-only resource', '/apps/1.0.0/x', userTok, 401, 900905);

  // A subscription added to the application file takes effect without a restart.
  s.home.write(`${APPS_DIR}/lonely.toml`, appToml({ name: 'Lonely', keys: [{ id: 'lonely', secret: 'l' }], subscriptions: [{ api: 'Both:1.0.0' }] }));
  await eventually(async () => (await s.call('/both/1.0.0/x', lonelyTok)).status === 200, 'the new subscription to apply');
  t.pass('subscription hot-deployed');
});
