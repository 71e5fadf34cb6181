/**
 * A well-kept OpenID Connect client library (openid-client 6, panva) configured from the discovery document
 * alone completes the authorization code flow with PKCE against the key manager: it checks the discovery
 * document's issuer, the authorization response's iss (RFC 9207) and state, the id_token's signature
 * (JWKS), iss, aud, nonce and at_hash, then reads userinfo and refreshes.
 */
import t from 'tap';
import * as oidc from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { startSecured } from '../helpers/secured.js';
import { BrowserSession } from '../helpers/authorize-client.js';

const CALLBACK = 'https://rp.example/callback';

t.test('openid-client discovers the key manager and completes the code flow with PKCE', async (t) => {
  const app = `name = "RelyingParty"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "rp-client"
client_secret = "rp-secret"
grant_types = ["authorization_code", "refresh_token"]
callback_url = "${CALLBACK}"
`;
  const s = await startSecured(t, { conf: { server: { hostname: '127.0.0.1' } }, apps: { rp: app } });
  // The key manager's certificate is self-signed in a test home: trust it for this client only.
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  t.teardown(() => dispatcher.close());
  const customFetch = ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
  const issuer = new URL(s.kmUrl('/oauth2/token'));
  const config = await oidc.discovery(issuer, 'rp-client', 'rp-secret', undefined, { [oidc.customFetch]: customFetch } as never);
  config[oidc.customFetch] = customFetch;
  const meta = config.serverMetadata();
  t.equal(meta.issuer, issuer.href, 'the document names the issuer it was fetched under');
  t.ok(meta.supportsPKCE('S256'));

  const verifier = oidc.randomPKCECodeVerifier();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256', state, nonce });
  const browser = new BrowserSession(new URL(url).origin);
  const page = await browser.open(url.href);
  t.equal(page.status, 200, page.text.slice(0, 200));
  const consent = await browser.login(page, 'admin', 'admin');
  const done = await browser.consent(consent);
  t.equal(done.status, 303);

  const tokens = await oidc.authorizationCodeGrant(config, new URL(String(done.headers.location)), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  const claims = tokens.claims()!;
  t.equal(claims.sub, 'admin');
  t.equal(claims.aud, 'rp-client');
  t.equal(claims.nonce, nonce);
  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  t.equal(info.sub, 'admin');
  t.equal(info['preferred_username'], 'admin', 'profile scope releases preferred_username');
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  t.type(refreshed.access_token, 'string');
  t.equal(refreshed.claims()?.sub, 'admin');

  await t.rejects(oidc.authorizationCodeGrant(config, new URL(String(done.headers.location)), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce }),
    { error: 'invalid_grant' }, 'the same code again is refused');
});
