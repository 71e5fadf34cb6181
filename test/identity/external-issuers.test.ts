/**
 * Tokens of an external identity provider ([[apim.jwt.issuer]]): the gateway validates them locally with
 * the provider's JWKS (fetched, cached, fetched again on an unknown kid), maps claims, and resolves the
 * application by the token's client claim against an application key declared for that issuer. The
 * jwt-bearer grant (RFC 7523) turns the same provider's assertions into tokens of Sluice's key manager.
 */
import crypto from 'node:crypto';
import t from 'tap';
import { SignJWT, generateKeyPair } from 'jose';
import { startSecured, basic, httpsPost, securedApiToml } from '../helpers/secured.js';
import { recordingBackend } from '../helpers/recording-backend.js';
import { faultOf } from '../helpers/backends.js';
import { EXT_APP, IDP, identityProvider } from '../helpers/identity-provider.js';

t.test('tokens of an external issuer at the gateway, and the jwt-bearer grant', async (t) => {
  const idp = await identityProvider(t);
  const backend = await recordingBackend(t);
  const bearerApp = `name = "BearerApp"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "bearer-client"
client_secret = "bearer-secret"
grant_types = ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
scopes = ["menu:read"]
[[subscriptions]]
api = "ExtApi:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
`;
  const s = await startSecured(t, {
    conf: {
      server: { hostname: '127.0.0.1' },
      apim: { jwt: { issuer: [{ name: 'okta', issuer: IDP, jwks: { url: idp.url }, consumer_key_claim: 'cid', claim_mapping: [{ remote_claim: 'scp', local_claim: 'scope' }] }] } },
    },
    apis: { ext: securedApiToml({ name: 'ExtApi', context: '/ext', production: backend.url, scopes: ['menu:read'] }) },
    apps: { ext: EXT_APP, bearer: bearerApp },
  });
  const now = Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({ iss: IDP, sub: 'user@idp', cid: 'okta-client-1', scp: 'menu:read', iat: now, exp: now + 300, jti: crypto.randomUUID(), ...extra });

  const ok = await s.call('/ext/1.0.0/menu', await idp.sign(claims()));
  t.equal(ok.status, 200, ok.text);
  t.equal((await s.call('/ext/1.0.0/scoped', await idp.sign(claims()))).status, 200, 'scp mapped to scope covers the scoped resource');
  t.equal(faultOf(await s.call('/ext/1.0.0/scoped', await idp.sign(claims({ scp: 'other' }))))?.code, 900910);

  const other = await generateKeyPair('RS256');
  const cases: [string, () => Promise<string>][] = [
    ['a client not declared for this issuer', () => idp.sign(claims({ cid: 'bearer-client' }))],
    ['another signing key under the same kid', () => idp.sign(claims(), { key: other.privateKey })],
    ['expired', () => idp.sign(claims({ exp: now - 120 }))],
    ['another issuer with the same keys', () => idp.sign(claims({ iss: 'https://evil.example/' }))],
    ['alg none', async () => `${Buffer.from('{"alg":"none","kid":"idp-1"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`],
    ['a kid the issuer does not publish', () => idp.sign(claims(), { kid: 'idp-unknown' })],
    ['a token of Sluice\'s key manager for the external client', () => s.forge({ iss: `https://127.0.0.1:${s.home.ports.servletHttps}/oauth2/token`, sub: 'x', client_id: 'okta-client-1', jti: crypto.randomUUID(), exp: now + 300, scope: 'menu:read' })],
  ];
  for (const [name, make] of cases) {
    const r = await s.call('/ext/1.0.0/menu', await make());
    t.equal(faultOf(r)?.code, 900901, `${name}: ${r.text}`);
  }

  const before = idp.fetches();
  const kid2 = await idp.rotate();
  const rotated = await s.call('/ext/1.0.0/menu', await idp.sign(claims(), { kid: kid2 }));
  t.equal(rotated.status, 200, `a new key of the issuer is fetched on its unknown kid: ${rotated.text}`);
  t.ok(idp.fetches() > before, 'the JWKS was fetched again');

  // RFC 7523: the same provider's assertion for a token of Sluice's key manager.
  const aud = `https://127.0.0.1:${s.home.ports.servletHttps}/oauth2/token`;
  const grant = (assertion: string) => httpsPost(s.kmUrl('/oauth2/token'), { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, scope: 'menu:read' }, { authorization: basic('bearer-client', 'bearer-secret') });
  const assertion = await idp.sign({ iss: IDP, sub: 'user@idp', aud, iat: now, exp: now + 120, jti: crypto.randomUUID() });
  const tok = await grant(assertion);
  t.equal(tok.status, 200, tok.text);
  const body = tok.json as { access_token: string; refresh_token?: string; scope: string };
  t.equal(body.refresh_token, undefined, 'no refresh token for an assertion grant');
  t.equal(body.scope, 'menu:read');
  t.equal((await s.call('/ext/1.0.0/menu', body.access_token)).status, 200, 'the token calls the API');
  const bad: [string, string][] = [
    ['the same assertion again (jti replay)', assertion],
    ['another audience', await idp.sign({ iss: IDP, sub: 'u', aud: 'https://other.example/token', exp: now + 120, jti: crypto.randomUUID() })],
    ['no exp', await idp.sign({ iss: IDP, sub: 'u', aud, jti: crypto.randomUUID() })],
    ['a lifetime beyond jwt_bearer_max_lifetime', await idp.sign({ iss: IDP, sub: 'u', aud, exp: now + 7200, jti: crypto.randomUUID() })],
    ['an untrusted issuer', await idp.sign({ iss: 'https://evil.example/', sub: 'u', aud, exp: now + 120, jti: crypto.randomUUID() })],
    ['no sub', await idp.sign({ iss: IDP, aud, exp: now + 120, jti: crypto.randomUUID() })],
    ['HS256 with the issuer\'s public key as the secret', await new SignJWT({ iss: IDP, sub: 'u', aud, exp: now + 120 }).setProtectedHeader({ alg: 'HS256', kid: 'idp-1' }).sign(new TextEncoder().encode(JSON.stringify(other.publicKey)))],
    ['signed by another key', await idp.sign({ iss: IDP, sub: 'u', aud, exp: now + 120, jti: crypto.randomUUID() }, { key: other.privateKey })],
  ];
  for (const [name, a] of bad) {
    const r = await grant(a);
    t.equal((r.json as { error?: string }).error, 'invalid_grant', `${name} [RFC 7523 §3]: ${r.text}`);
  }
  const noGrant = await httpsPost(s.kmUrl('/oauth2/token'), { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }, { authorization: basic('pizza-client', 'pizza-secret') });
  t.equal((noGrant.json as { error?: string }).error, 'unauthorized_client', 'a client without the grant');
});
