import t from 'tap';
import { startTestKeyManager, basic, decodeJwt } from '../fixtures/keymanager-harness.js';

const AUTH = { authorization: basic('acme-client', 'acme-secret') };
const SEED_HEADERS = ['x-sluice-traceid', 'revokedaccesstoken', 'revokedrefreshtoken', 'authorizeduser', 'x-frame-options',
  'x-content-type-options', 'cache-control', 'pragma', 'content-type', 'content-length', 'date'];
// Hop-by-hop headers the HTTP/1.1 transport adds to every keep-alive answer.
const TRANSPORT = new Set(['connection', 'keep-alive']);

t.test('revoking a refresh token: 200, empty body, exactly the seed\'s headers; its access token dies too', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const jti = decodeJwt(pw.json.access_token).payload.jti;
  const r = await k.post('/oauth2/revoke', { token: pw.json.refresh_token }, AUTH);
  t.equal(r.status, 200, r.text);
  t.equal(r.text, '');
  const names = Object.keys(r.headers).filter((h) => !TRANSPORT.has(h)).sort();
  t.same(names, [...SEED_HEADERS].sort(), 'the seed\'s header set, nothing else');
  t.match(r.headers['x-sluice-traceid'], /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.equal(r.headers['revokedaccesstoken'], jti, 'RevokedAccessToken: the access token\'s identifier');
  t.equal(r.headers['revokedrefreshtoken'], pw.json.refresh_token);
  t.equal(r.headers['authorizeduser'], 'acme-client');
  t.equal(r.headers['x-frame-options'], 'DENY');
  t.equal(r.headers['x-content-type-options'], 'nosniff');
  t.equal(r.headers['cache-control'], 'no-store');
  t.equal(r.headers['pragma'], 'no-cache');
  t.equal(r.headers['content-type'], 'application/json');
  t.equal(r.headers['content-length'], '0');
  t.ok(!Number.isNaN(Date.parse(r.headers['date']!)));
  const rawNames = r.rawHeaders.filter((_, i) => i % 2 === 0);
  for (const n of ['X-Sluice-TraceId', 'RevokedAccessToken', 'RevokedRefreshToken', 'AuthorizedUser']) t.ok(rawNames.includes(n), `${n} written with the seed's spelling`);
  t.equal((await k.introspect(pw.json.access_token)).json.active, false, 'the access token of the pair is revoked');
  t.equal((await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token })).json.error, 'invalid_grant');
  t.same(k.events.map((e) => [e.type, e.tokenId, e.tokenType, e.consumerKey]), [['token.revoked', jti, 'JWT', 'acme-client']]);
});

t.test('revoking an access token: RevokedAccessToken only; the event is applied before the answer', async (t) => {
  const k = await startTestKeyManager(t);
  const applied: string[] = [];
  k.bus.subscribe('token.revoked', async (e) => { await new Promise((r) => setTimeout(r, 100)); applied.push(e.tokenId); });
  const cc = await k.token({ grant_type: 'client_credentials' });
  const jti = decodeJwt(cc.json.access_token).payload.jti;
  const r = await k.post('/oauth2/revoke', { token: cc.json.access_token, token_type_hint: 'access_token' }, AUTH);
  t.equal(r.status, 200);
  t.same(applied, [jti], 'a slow subscriber had applied the revocation when the call returned');
  t.equal(r.headers['revokedaccesstoken'], jti);
  t.notOk(r.headers['revokedrefreshtoken']);
  t.equal((await k.introspect(cc.json.access_token)).json.active, false);
  const e = k.events[0]!;
  t.ok(e.expiresAt > Date.now() + 3000_000 && e.revokedAt <= Date.now(), 'expiresAt and revokedAt');
});

t.test('token_type_hint naming the wrong space still revokes: the hinted space is searched first, then the other (RFC 7009 §2.1)', async (t) => {
  const k = await startTestKeyManager(t);
  const a = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const refreshAsAccess = await k.post('/oauth2/revoke', { token: a.json.refresh_token, token_type_hint: 'access_token' }, AUTH);
  t.equal(refreshAsAccess.status, 200);
  t.equal(refreshAsAccess.headers['revokedrefreshtoken'], a.json.refresh_token, 'a refresh token hinted as an access token is found');
  t.equal(refreshAsAccess.headers['revokedaccesstoken'], decodeJwt(a.json.access_token).payload.jti);
  t.equal((await k.introspect(a.json.access_token)).json.active, false, 'its access token is dead');
  t.equal((await k.token({ grant_type: 'refresh_token', refresh_token: a.json.refresh_token })).status, 400, 'the refresh token no longer works');

  const b = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const accessAsRefresh = await k.post('/oauth2/revoke', { token: b.json.access_token, token_type_hint: 'refresh_token' }, AUTH);
  t.equal(accessAsRefresh.status, 200);
  t.equal(accessAsRefresh.headers['revokedaccesstoken'], decodeJwt(b.json.access_token).payload.jti, 'an access token hinted as a refresh token is found');
  t.notOk(accessAsRefresh.headers['revokedrefreshtoken'], 'it was found in the access-token space');
  t.equal((await k.introspect(b.json.access_token)).json.active, false);

  const c = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const right = await k.post('/oauth2/revoke', { token: c.json.refresh_token, token_type_hint: 'refresh_token' }, AUTH);
  t.equal(right.headers['revokedrefreshtoken'], c.json.refresh_token, 'control: the right hint');
  t.equal((await k.introspect(c.json.access_token)).json.active, false);
});

t.test('RFC 7009: an unknown token answers 200 with nothing revoked; revoking twice is fine', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await k.post('/oauth2/revoke', { token: 'never-issued' }, AUTH);
  t.equal(r.status, 200);
  t.equal(r.text, '');
  t.notOk(r.headers['revokedaccesstoken']);
  t.equal(r.headers['authorizeduser'], 'acme-client');
  t.equal(r.headers['content-length'], '0');
  const cc = await k.token({ grant_type: 'client_credentials' });
  t.equal((await k.post('/oauth2/revoke', { token: cc.json.access_token }, AUTH)).status, 200);
  t.equal((await k.post('/oauth2/revoke', { token: cc.json.access_token }, AUTH)).status, 200);
  t.equal(k.events.length, 1, 'one event: the second call changed nothing');
});

t.test('a client cannot revoke another client\'s token; an administrator can revoke any', async (t) => {
  const k = await startTestKeyManager(t);
  const cc = await k.token({ grant_type: 'client_credentials' });
  const foreign = await k.post('/oauth2/revoke', { token: cc.json.access_token }, { authorization: basic('acme-other', 'acme-other-secret') });
  t.equal(foreign.status, 400);
  t.equal(foreign.json.error, 'unauthorized_client');
  t.ok(foreign.headers['x-sluice-traceid']);
  t.equal((await k.introspect(cc.json.access_token)).json.active, true, 'not revoked');
  const admin = await k.post('/oauth2/revoke', { token: cc.json.access_token }, { authorization: basic('admin', 'admin') });
  t.equal(admin.status, 200);
  t.equal(admin.headers['authorizeduser'], 'admin');
  t.equal((await k.introspect(cc.json.access_token)).json.active, false);
});

t.test('revocation errors', async (t) => {
  const k = await startTestKeyManager(t);
  const noauth = await k.post('/oauth2/revoke', { token: 'x' });
  t.equal(noauth.status, 401);
  t.equal(noauth.json.error, 'invalid_client');
  t.equal(noauth.headers['www-authenticate'], 'Basic realm="sluice"');
  const badSecret = await k.post('/oauth2/revoke', { token: 'x' }, { authorization: basic('acme-client', 'nope') });
  t.equal(badSecret.status, 401);
  const missing = await k.post('/oauth2/revoke', {}, AUTH);
  t.equal(missing.status, 400);
  t.equal(missing.json.error, 'invalid_request');
  const json = await k.post('/oauth2/revoke', '{"token":"x"}', { ...AUTH, 'content-type': 'application/json' });
  t.equal(json.status, 400);
  t.equal(json.json.error, 'invalid_request');
  const body = await k.post('/oauth2/revoke', { token: 'x', client_id: 'acme-client', client_secret: 'acme-secret' });
  t.equal(body.status, 200, 'client credentials in the body work for revocation too');
});
