import t from 'tap';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { startTestKeyManager, basic, decodeJwt, request, ACME_APP } from '../fixtures/keymanager-harness.js';
import { BrowserSession, hidden, pkcePair } from '../helpers/authorize-client.js';
import { WEB_APP, OTHER_WEB_APP, REDIRECT } from './fixtures.js';
import { atHash } from '../../engine/keymanager/oidc/id-token.js';

const apps = { 'web.toml': WEB_APP, 'other-web.toml': OTHER_WEB_APP, 'acme-app.toml': ACME_APP };

t.test('a user signs in, consents, and the code (with its PKCE verifier) buys tokens with an id_token', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const browser = new BrowserSession(k.base);
  const { verifier, challenge } = pkcePair();
  const page = await browser.authorize({ client_id: 'web-client', redirect_uri: REDIRECT, scope: 'openid menu:read', state: 'xyz', nonce: 'n-0S6_WzA2Mj', code_challenge: challenge, code_challenge_method: 'S256' });
  t.equal(page.status, 200, page.text.slice(0, 200));
  t.match(page.headers['content-type'], /^text\/html/);
  t.match(page.text, /<label for="username">User name<\/label>/, 'labelled user name field');
  t.match(page.text, /<label for="password">Password<\/label>/, 'labelled password field');
  t.match(page.text, /autocomplete="current-password"/);
  t.equal(page.headers['cache-control'], 'no-store');
  t.equal(page.headers['x-frame-options'], 'DENY');
  t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/);
  t.match(String(page.headers['set-cookie']), /sluice_authz=[^;]+; Path=\/oauth2\/authorize; Secure; HttpOnly; SameSite=Strict/);
  t.notMatch(page.text, /verifier|password=/i, 'no credential in the page');

  const consent = await browser.login(page, 'admin', 'admin');
  t.equal(consent.status, 200);
  t.match(consent.text, /Allow access\?/);
  t.match(consent.text, /<li>menu:read<\/li>/);
  t.match(consent.headers['content-security-policy'], /form-action 'self' https:\/\/app\.example/);
  const done = await browser.consent(consent, 'allow');
  t.equal(done.status, 303);
  const loc = new URL(String(done.headers.location));
  t.equal(`${loc.origin}${loc.pathname}`, REDIRECT);
  t.equal(loc.searchParams.get('state'), 'xyz');
  t.equal(loc.searchParams.get('iss'), k.km.tokens.issuer, 'RFC 9207 iss');
  const code = loc.searchParams.get('code')!;
  t.match(code, /^[A-Za-z0-9_-]{43}$/);

  const tok = await k.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, 'web-client', 'web-secret');
  t.equal(tok.status, 200, tok.text);
  t.equal(tok.json.scope, 'openid menu:read');
  t.type(tok.json.refresh_token, 'string');
  const at = decodeJwt(tok.json.access_token).payload;
  t.equal(at.sub, 'admin');
  t.equal(at.aut, 'APPLICATION_USER');
  const jwks = createLocalJWKSet(k.km.keys.jwks());
  const { payload: id, protectedHeader } = await jwtVerify(tok.json.id_token, jwks, { issuer: k.km.tokens.issuer, audience: 'web-client' });
  t.equal(protectedHeader.typ, 'JWT');
  t.equal(id.sub, 'admin');
  t.equal(id['nonce'], 'n-0S6_WzA2Mj');
  t.equal(id['at_hash'], atHash(tok.json.access_token));
  t.type(id['auth_time'], 'number');
  t.ok(id.exp! - id.iat! === 3600, 'id_token validity from oauth.oidc.token_validation.id_token_validity');

  const info = await request(`${k.base}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tok.json.access_token}` } });
  t.equal(info.status, 200, info.text);
  t.equal(info.json.sub, 'admin');
  const post = await request(`${k.base}/oauth2/userinfo`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `access_token=${tok.json.access_token}` });
  t.equal(post.json.sub, 'admin', 'POST with the token as a form parameter');

  const refreshed = await k.token({ grant_type: 'refresh_token', refresh_token: tok.json.refresh_token }, 'web-client', 'web-secret');
  t.equal(refreshed.status, 200);
  const rid = decodeJwt(refreshed.json.id_token).payload;
  t.equal(rid.nonce, undefined, 'a refreshed id_token carries no nonce');
  t.equal(rid.at_hash, atHash(refreshed.json.access_token));
});

t.test('the wrong password and an unknown user get the same answer, next to the fields', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const browser = new BrowserSession(k.base);
  const page = await browser.authorize({ client_id: 'web-client', redirect_uri: REDIRECT, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
  const wrong = await browser.login(page, 'admin', 'nope');
  const unknown = await browser.login(page, 'nobody', 'nope');
  t.equal(wrong.status, 200);
  t.match(wrong.text, /role="alert"/);
  t.match(wrong.text, /aria-invalid="true" aria-describedby="password-error"/);
  const msg = (html: string): string[] => [...html.matchAll(/class="error">([^<]*)</g)].map((m) => m[1]!);
  t.same(msg(wrong.text), msg(unknown.text), 'same messages for an unknown user and a wrong password');
  t.ok(hidden(wrong.text, 'request'), 'the form can be tried again');
  const empty = await browser.login(page, '', '');
  t.match(empty.text, /id="username-error" class="error">Enter your user name/);
  t.match(empty.text, /id="password-error" class="error">Enter your password/);
  const ok = await browser.login(wrong, 'admin', 'admin');
  t.equal(ok.status, 200);
  t.ok(hidden(ok.text, 'consent'), 'signed in after a failure');
});

t.test('Deny answers access_denied at the redirect URI with the state', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const browser = new BrowserSession(k.base);
  const page = await browser.authorize({ client_id: 'web-client', state: 's-1', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
  const consent = await browser.login(page, 'admin', 'admin');
  const denied = await browser.consent(consent, 'deny');
  t.equal(denied.status, 303);
  const loc = new URL(String(denied.headers.location));
  t.equal(loc.searchParams.get('error'), 'access_denied');
  t.equal(loc.searchParams.get('state'), 's-1');
  t.equal(loc.searchParams.get('code'), null);
});

t.test('without redirect_uri the registered one is used, and the token request must then not name another', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const browser = new BrowserSession(k.base);
  const { verifier, challenge } = pkcePair();
  const { location } = await browser.flow({ client_id: 'web-client', code_challenge: challenge, code_challenge_method: 'S256' }, 'admin', 'admin');
  t.equal(`${location.origin}${location.pathname}`, REDIRECT);
  const tok = await k.token({ grant_type: 'authorization_code', code: location.searchParams.get('code')!, code_verifier: verifier }, 'web-client', 'web-secret');
  t.equal(tok.status, 200, tok.text);
  t.equal(tok.json.id_token, undefined, 'no openid scope, no id_token');
});

t.test('the authorization endpoint is refused on the plain HTTP port', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const r = await request(`${k.httpBase}/oauth2/authorize?response_type=code&client_id=web-client`);
  t.equal(r.status, 403);
  t.notMatch(r.text, /<form/);
});

t.test('discovery lists the endpoints, S256 only, and the grants as configured', async (t) => {
  const k = await startTestKeyManager(t, { apps, conf: { oauth: { grant_type: { password: { enable: false } } } } });
  for (const p of ['/oauth2/token/.well-known/openid-configuration', '/.well-known/openid-configuration']) {
    const d = await request(`${k.base}${p}`);
    t.equal(d.status, 200);
    t.equal(d.json.issuer, k.km.tokens.issuer);
    t.equal(d.json.authorization_endpoint, 'https://localhost:9443/oauth2/authorize');
    t.equal(d.json.userinfo_endpoint, 'https://localhost:9443/oauth2/userinfo');
    t.same(d.json.code_challenge_methods_supported, ['S256']);
    t.same(d.json.id_token_signing_alg_values_supported, ['RS256']);
    t.same(d.json.response_types_supported, ['code']);
    t.notOk(d.json.grant_types_supported.includes('password'), 'a disabled grant is not listed');
    t.ok(d.json.grant_types_supported.includes('authorization_code'));
  }
  const forged = await request(`${k.base}/.well-known/openid-configuration`, { headers: { host: 'evil.example' } });
  t.equal(forged.json.token_endpoint, 'https://localhost:9443/oauth2/token', 'the Host header does not move the endpoints');
});

t.test('the password grant with scope openid gives an id_token; userinfo refuses tokens without openid', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const r = await k.token({ grant_type: 'password', username: 'admin', password: 'admin', scope: 'openid' });
  t.equal(r.status, 200);
  const id = decodeJwt(r.json.id_token).payload;
  t.equal(id.aud, 'acme-client');
  t.equal(id.at_hash, atHash(r.json.access_token));
  const noOpenid = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal(noOpenid.json.id_token, undefined);
  const ui = await request(`${k.base}/oauth2/userinfo`, { headers: { authorization: `Bearer ${noOpenid.json.access_token}` } });
  t.equal(ui.status, 403);
  t.match(String(ui.headers['www-authenticate']), /insufficient_scope/);
  const cc = await k.token({ grant_type: 'client_credentials', scope: 'openid' });
  t.equal(cc.json.id_token, undefined, 'client credentials: no id_token unless allow_id_token');
  await k.post('/oauth2/revoke', { token: r.json.access_token }, { authorization: basic('acme-client', 'acme-secret') });
  const revoked = await request(`${k.base}/oauth2/userinfo`, { headers: { authorization: `Bearer ${r.json.access_token}` } });
  t.equal(revoked.status, 401);
  t.match(String(revoked.headers['www-authenticate']), /invalid_token/);
  const none = await request(`${k.base}/oauth2/userinfo`);
  t.equal(none.status, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer realm="sluice"');
});
