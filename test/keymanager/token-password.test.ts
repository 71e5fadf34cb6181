import t from 'tap';
import { startTestKeyManager, basic, decodeJwt } from '../fixtures/keymanager-harness.js';

t.test('password grant: the super admin from [super_admin] gets a user token and a refresh token', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await k.token({ grant_type: 'password', username: 'admin', password: 'admin', scope: 'acme:read' });
  t.equal(r.status, 200, r.text);
  t.type(r.json.refresh_token, 'string', 'refresh tokens come with the password grant');
  t.equal(r.json.scope, 'acme:read');
  t.equal(r.headers['cache-control'], 'no-store');
  const { payload } = decodeJwt(r.json.access_token);
  t.equal(payload.sub, 'admin');
  t.equal(payload.aut, 'APPLICATION_USER');
  t.equal(payload.aud, 'acme-client');
});

t.test('password grant: wrong password, unknown user and missing fields', async (t) => {
  const k = await startTestKeyManager(t);
  const wrong = await k.token({ grant_type: 'password', username: 'admin', password: 'nope' });
  t.equal(wrong.status, 400);
  t.same(wrong.json, { error: 'invalid_grant', error_description: 'invalid resource owner credentials' });
  const unknown = await k.token({ grant_type: 'password', username: 'nobody', password: 'admin' });
  t.equal(unknown.status, 400);
  t.equal(unknown.json.error, 'invalid_grant');
  const noUser = await k.token({ grant_type: 'password', password: 'admin' });
  t.equal(noUser.status, 400);
  t.equal(noUser.json.error, 'invalid_request');
  const noPass = await k.token({ grant_type: 'password', username: 'admin' });
  t.equal(noPass.status, 400);
  t.equal(noPass.json.error, 'invalid_request');
});

t.test('user and application validity come from [oauth.token_validation]', async (t) => {
  const k = await startTestKeyManager(t, { conf: { oauth: { token_validation: { app_access_token_validity: 120, user_access_token_validity: 240, refresh_token_validity: 600 } } } });
  const app = await k.token({ grant_type: 'client_credentials' });
  t.equal(app.json.expires_in, 120);
  const p = decodeJwt(app.json.access_token).payload;
  t.equal(p.exp - p.iat, 120);
  const user = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal(user.json.expires_in, 240);
  const rt = await k.km.store.tokens.findByRefreshHash((await import('../../engine/keymanager/token-crypto.js')).tokenHash(user.json.refresh_token));
  t.ok(rt);
  t.ok(Math.abs(rt!.refreshExpiresAt! - rt!.issuedAt - 600_000) < 2000, 'refresh token validity 600 s');
});

t.test('create_admin_account = false: no administrator, so no password grant for admin', async (t) => {
  const k = await startTestKeyManager(t, { conf: { super_admin: { create_admin_account: false } } });
  const r = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal(r.status, 400);
  t.equal(r.json.error, 'invalid_grant');
});

t.test('a changed [super_admin] password replaces the stored one at the next start', async (t) => {
  const k = await startTestKeyManager(t);
  t.equal((await k.token({ grant_type: 'password', username: 'admin', password: 'admin' })).status, 200);
  await k.stop();
  const k2 = await startTestKeyManager(t, { home: k.home, conf: { super_admin: { password: 'n3w-pass' } } });
  t.equal((await k2.token({ grant_type: 'password', username: 'admin', password: 'admin' })).json.error, 'invalid_grant');
  t.equal((await k2.token({ grant_type: 'password', username: 'admin', password: 'n3w-pass' })).status, 200);
  const introspect = await k2.post('/oauth2/introspect', { token: 'x' }, { authorization: basic('admin', 'n3w-pass') });
  t.equal(introspect.status, 200, 'the key manager credentials follow $ref{super_admin.password} too');
});
