import t from 'tap';
import { startTestKeyManager, basic, decodeJwt } from '../fixtures/keymanager-harness.js';

t.test('introspection (RFC 7662) for the gateway: fields, authentication, inactive tokens', async (t) => {
  const k = await startTestKeyManager(t, { conf: { apim: { key_manager: { username: 'gw', password: 'gw-pass' } } } });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin', scope: 'acme:read' });
  const jwt = decodeJwt(pw.json.access_token).payload;
  const post = (token: string, auth = basic('gw', 'gw-pass'), hint?: string) => k.post('/oauth2/introspect', { token, ...(hint ? { token_type_hint: hint } : {}) }, { authorization: auth });
  const r = await post(pw.json.access_token);
  t.equal(r.status, 200);
  t.equal(r.headers['cache-control'], 'no-store');
  t.same(r.json, {
    active: true, scope: 'acme:read', client_id: 'acme-client', username: 'admin', sub: 'admin', aud: 'acme-client',
    iss: 'https://localhost:9443/oauth2/token', jti: jwt.jti, exp: jwt.exp, iat: jwt.iat, nbf: jwt.iat, token_type: 'Bearer', token_format: 'JWT',
    application_name: 'AcmeApp', application_owner: 'admin', application_tier: 'Unlimited', subscriber: 'admin', key_type: 'PRODUCTION',
    user_type: 'APPLICATION_USER',
  });
  const rt = await post(pw.json.refresh_token, undefined, 'refresh_token');
  t.equal(rt.json.active, true);
  t.equal(rt.json.token_type, 'refresh_token');
  t.same((await post('unknown')).json, { active: false });
  t.equal((await post(pw.json.access_token, basic('admin', 'admin'))).json.active, true, 'an administrator may introspect');
  const wrong = await post(pw.json.access_token, basic('acme-client', 'acme-secret'));
  t.equal(wrong.status, 401, 'a client may not');
  t.equal(wrong.json.error, 'invalid_client');
  t.equal((await k.post('/oauth2/introspect', { token: 'x' })).status, 401);
  t.equal((await post('')).json.error, 'invalid_request');
});

t.test('oauth.timestamp_skew: a token is inactive skew seconds before it expires', async (t) => {
  let now = Date.now();
  const k = await startTestKeyManager(t, { conf: { oauth: { timestamp_skew: 60 } }, opts: { now: () => now } });
  const cc = await k.token({ grant_type: 'client_credentials' });
  t.equal((await k.introspect(cc.json.access_token)).json.active, true);
  now += (3600 - 59) * 1000;
  t.equal((await k.introspect(cc.json.access_token)).json.active, false);
});
