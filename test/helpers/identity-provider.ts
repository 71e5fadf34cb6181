import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';

/** The issuer of the external identity provider's tokens in the tests. */
export const IDP = 'https://idp.example/oauth2/default';

/** An application whose production key is the provider's client `okta-client-1` (issuer name `okta`), subscribed to ExtApi:1.0.0. */
export const EXT_APP = `name = "ExtApp"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "okta-client-1"
key_manager = "okta"
[[subscriptions]]
api = "ExtApi:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
`;

/**
 * An external identity provider on loopback: its JWKS at `url` (RS256 keys, `rotate` adds one), `sign` makes
 * its tokens with any claims. `fetches` counts the JWKS requests.
 */
export async function identityProvider(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; sign(claims: Record<string, unknown>, o?: { kid?: string; alg?: string; key?: CryptoKey }): Promise<string>; rotate(): Promise<string>; fetches: () => number }> {
  const keys: { kid: string; priv: CryptoKey; jwk: JWK }[] = [];
  const add = async (): Promise<string> => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = `idp-${keys.length + 1}`;
    keys.push({ kid, priv: privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } });
    return kid;
  };
  await add();
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`,
    async sign(claims, o = {}) {
      const k = keys.find((x) => x.kid === (o.kid ?? keys[keys.length - 1]!.kid)) ?? keys[0]!;
      return new SignJWT(claims).setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? k.kid, typ: 'JWT' }).sign(o.key ?? k.priv);
    },
    rotate: add,
    fetches: () => fetches,
  };
}
