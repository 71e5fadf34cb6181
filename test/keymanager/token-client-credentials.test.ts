import t from 'tap';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { startTestKeyManager, basic, decodeJwt, request } from '../fixtures/keymanager-harness.js';

t.test('client_credentials over HTTPS: seed token response, no-store headers, a verifiable JWT', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await k.token({ grant_type: 'client_credentials' });
  t.equal(r.status, 200, r.text);
  t.equal(r.headers['cache-control'], 'no-store');
  t.equal(r.headers['pragma'], 'no-cache');
  t.match(r.headers['content-type'], /^application\/json/);
  t.same(Object.keys(r.json).sort(), ['access_token', 'expires_in', 'scope', 'token_type'], 'no refresh token: allow_refresh_tokens defaults to false');
  t.equal(r.json.token_type, 'Bearer');
  t.equal(r.json.expires_in, 3600);
  t.equal(r.json.scope, 'default');

  const jwks = await request(`${k.base}/oauth2/jwks`);
  t.equal(jwks.status, 200);
  const { payload, protectedHeader } = await jwtVerify(r.json.access_token, createLocalJWKSet(jwks.json), {
    issuer: `https://localhost:9443/oauth2/token`, audience: 'acme-client',
  });
  t.equal(protectedHeader.alg, 'RS256');
  t.equal(protectedHeader.kid, jwks.json.keys[0].kid, 'kid names the published key');
  t.equal(payload.sub, 'admin', 'sub: the application owner for client credentials');
  t.equal(payload['client_id'], 'acme-client');
  t.equal(payload['azp'], 'acme-client');
  t.equal(payload['scope'], 'default');
  t.equal(payload['keytype'], 'PRODUCTION');
  t.equal(payload['aut'], 'APPLICATION');
  t.same(payload['application'], { name: 'AcmeApp', owner: 'admin', tier: 'Unlimited' });
  t.equal(payload['subscriber'], 'admin');
  t.type(payload.jti, 'string');
  t.equal(payload.exp! - payload.iat!, 3600);
});

t.test('the sandbox key gives SANDBOX tokens', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await k.token({ grant_type: 'client_credentials' }, 'acme-sandbox-client', 'acme-sandbox-secret');
  t.equal(r.status, 200, r.text);
  t.equal(decodeJwt(r.json.access_token).payload['keytype'], 'SANDBOX');
});

t.test('client_id and client_secret in the body authenticate as well (RFC 6749 §2.3.1)', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await k.post('/oauth2/token', { grant_type: 'client_credentials', client_id: 'acme-client', client_secret: 'acme-secret' });
  t.equal(r.status, 200, r.text);
  const wrong = await k.post('/oauth2/token', { grant_type: 'client_credentials', client_id: 'acme-client', client_secret: 'nope' });
  t.equal(wrong.status, 401);
  t.equal(wrong.json.error, 'invalid_client');
  const both = await k.post('/oauth2/token', { grant_type: 'client_credentials', client_id: 'acme-client', client_secret: 'acme-secret' }, { authorization: basic('acme-client', 'acme-secret') });
  t.equal(both.status, 400, 'two authentication methods in one request');
  t.equal(both.json.error, 'invalid_request');
  const noSecret = await k.post('/oauth2/token', { grant_type: 'client_credentials', client_id: 'acme-client' });
  t.equal(noSecret.status, 401);
  t.equal(noSecret.json.error, 'invalid_client');
});

t.test('Basic credentials are form-urlencoded before base64 (RFC 6749 §2.3.1)', async (t) => {
  const k = await startTestKeyManager(t, { apps: { 'odd.toml': `name = "Odd"
[[keys]]
client_id = "odd-client"
client_secret = "p@ss:w%rd é"
` } });
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  const r = await k.post('/oauth2/token', { grant_type: 'client_credentials' }, { authorization: basic(enc('odd-client'), enc('p@ss:w%rd é')) });
  t.equal(r.status, 200, r.text);
});

t.test('tokens are new on every request and each is stored', async (t) => {
  const k = await startTestKeyManager(t);
  const a = await k.token({ grant_type: 'client_credentials' });
  const b = await k.token({ grant_type: 'client_credentials' });
  t.not(a.json.access_token, b.json.access_token);
  for (const tok of [a.json.access_token, b.json.access_token]) {
    const i = await k.introspect(tok);
    t.equal(i.json.active, true);
  }
});
