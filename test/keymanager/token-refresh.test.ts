import t from 'tap';
import { startTestKeyManager, basic } from '../fixtures/keymanager-harness.js';

t.test('a refresh token works once and is replaced by a new one (seed 000 rule 1)', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin', scope: 'acme:read acme:write' });
  const rt1 = pw.json.refresh_token;
  const r1 = await k.token({ grant_type: 'refresh_token', refresh_token: rt1 });
  t.equal(r1.status, 200, r1.text);
  t.type(r1.json.refresh_token, 'string');
  t.not(r1.json.refresh_token, rt1);
  t.equal(r1.json.scope, 'acme:read acme:write', 'the original scope by default');
  t.equal(r1.headers['cache-control'], 'no-store');
  const again = await k.token({ grant_type: 'refresh_token', refresh_token: rt1 });
  t.equal(again.status, 400);
  t.same(again.json, { error: 'invalid_grant', error_description: 'the refresh token has already been used' });
  const r2 = await k.token({ grant_type: 'refresh_token', refresh_token: r1.json.refresh_token });
  t.equal(r2.status, 200, 'the renewed refresh token works');
});

t.test('the access token a refresh replaces stops working, and the gateways are told', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal((await k.introspect(pw.json.access_token)).json.active, true);
  const r = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token });
  t.equal(r.status, 200);
  t.equal((await k.introspect(pw.json.access_token)).json.active, false);
  t.equal((await k.introspect(r.json.access_token)).json.active, true);
  const jti = JSON.parse(Buffer.from(pw.json.access_token.split('.')[1], 'base64url').toString()).jti;
  t.ok(k.events.some((e) => e.tokenId === jti && e.tokenType === 'JWT' && e.consumerKey === 'acme-client'), 'token.revoked for the replaced access token');
});

t.test('a refresh token of another client, an unknown one, a revoked one: invalid_grant', async (t) => {
  const k = await startTestKeyManager(t, {
    apps: {
      'a.toml': `name = "A"\n[[keys]]\nclient_id = "a-client"\nclient_secret = "a-secret"\n`,
      'b.toml': `name = "B"\n[[keys]]\nclient_id = "b-client"\nclient_secret = "b-secret"\n`,
    },
  });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' }, 'a-client', 'a-secret');
  const foreign = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token }, 'b-client', 'b-secret');
  t.equal(foreign.status, 400);
  t.equal(foreign.json.error, 'invalid_grant');
  const unknown = await k.token({ grant_type: 'refresh_token', refresh_token: 'never-issued' }, 'a-client', 'a-secret');
  t.equal(unknown.json.error, 'invalid_grant');
  t.same(unknown.json.error_description, foreign.json.error_description, 'a foreign token looks like an unknown one');
  const rv = await k.post('/oauth2/revoke', { token: pw.json.refresh_token }, { authorization: basic('a-client', 'a-secret') });
  t.equal(rv.status, 200);
  const revoked = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token }, 'a-client', 'a-secret');
  t.same(revoked.json, { error: 'invalid_grant', error_description: 'the refresh token has been revoked' });
  const missing = await k.token({ grant_type: 'refresh_token' }, 'a-client', 'a-secret');
  t.equal(missing.json.error, 'invalid_request');
});

t.test('an expired refresh token is invalid_grant', async (t) => {
  let now = Date.now();
  const k = await startTestKeyManager(t, { opts: { now: () => now } });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  now += 86_400_000 + 1000;
  const r = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token });
  t.same(r.json, { error: 'invalid_grant', error_description: 'the refresh token has expired' });
});

t.test('a refresh may narrow the scope but not widen it (RFC 6749 §6)', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin', scope: 'acme:read acme:write' });
  const wider = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token, scope: 'acme:read openid' });
  t.equal(wider.status, 400);
  t.equal(wider.json.error, 'invalid_scope');
  const narrower = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token, scope: 'acme:read' });
  t.equal(narrower.status, 200, 'the refused widening did not use the token up');
  t.equal(narrower.json.scope, 'acme:read');
});

t.test('a client without the refresh_token grant presenting another client\'s refresh token: invalid_grant', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const r = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token }, 'acme-other', 'acme-other-secret');
  t.equal(r.status, 400);
  t.equal(r.json.error, 'invalid_grant');
});

t.test('a key that lost the refresh_token grant cannot use its own refresh token: unauthorized_client', async (t) => {
  const { writeApp, waitFor } = await import('../fixtures/keymanager-harness.js');
  const k = await startTestKeyManager(t, { apps: { 'a.toml': `name = "A"\n[[keys]]\nclient_id = "a-client"\nclient_secret = "a-secret"\n` } });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' }, 'a-client', 'a-secret');
  writeApp(k.home, 'a.toml', `name = "A"\n[[keys]]\nclient_id = "a-client"\nclient_secret = "a-secret"\ngrant_types = ["password"]\n`);
  await waitFor(async () => (await k.km.store.applications.findByClientId('a-client'))!.key.grantTypes.length === 1, 5000, 'the reload');
  k.km.clients.invalidate();
  const r = await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token }, 'a-client', 'a-secret');
  t.equal(r.json.error, 'unauthorized_client');
});
