import t from 'tap';
import { startTestKeyManager } from '../fixtures/keymanager-harness.js';

t.test('scopes: the key\'s scopes and oauth.allowed_scopes patterns are granted, the rest dropped', async (t) => {
  const k = await startTestKeyManager(t);
  const cases: [string, string][] = [
    ['acme:read', 'acme:read'],
    ['acme:read acme:write', 'acme:read acme:write'],
    ['acme:read acme:admin', 'acme:read'],
    ['acme:admin', 'default'],
    ['openid', 'openid'],
    ['device_abc acme:read', 'device_abc acme:read'],
    ['xdevice_abc', 'default'],
    ['openidx', 'default'],
    ['acme:read  acme:read', 'acme:read'],
  ];
  for (const [asked, got] of cases) {
    const r = await k.token({ grant_type: 'client_credentials', scope: asked });
    t.equal(r.status, 200, asked);
    t.equal(r.json.scope, got, `asked "${asked}"`);
  }
});

t.test('oauth.allowed_scopes and apim.oauth_config.allowed_scopes are regular expressions matched whole', async (t) => {
  const k = await startTestKeyManager(t, { conf: { oauth: { allowed_scopes: ['^internal_.*'] }, apim: { oauth_config: { allowed_scopes: ['report:(daily|weekly)'] } } } });
  const r = await k.token({ grant_type: 'client_credentials', scope: 'internal_x report:daily report:yearly device_1 acme:write' });
  t.equal(r.json.scope, 'internal_x report:daily acme:write', 'device_ is no longer allowed once the operator replaces the default list');
});
