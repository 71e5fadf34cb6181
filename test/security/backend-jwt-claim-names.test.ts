// The backend JWT ([apim.jwt] enable_user_claims) carries the caller's token claims. A token's claim names
// are its issuer's, and an external issuer's tokens come from outside: a claim named like a member every
// object inherits (test/fixtures/attacks/object-keys.json) must be carried as a claim of its own, not
// dropped because `in` found the inherited member, and `__proto__` must not re-parent the claims object.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startSecured, securedApiToml } from '../helpers/secured.js';
import { recordingBackend } from '../helpers/recording-backend.js';
import { EXT_APP, IDP, identityProvider } from '../helpers/identity-provider.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
interface KeyCase { readonly id: string; readonly key: string }
const corpus = JSON.parse(fs.readFileSync(path.join(HERE, '../fixtures/attacks/object-keys.json'), 'utf8')) as { attacks: KeyCase[]; controls: KeyCase[] };

t.test('token claims named like inherited members reach the backend JWT as claims of their own', async (t) => {
  const idp = await identityProvider(t);
  const be = await recordingBackend(t);
  const s = await startSecured(t, {
    conf: {
      server: { hostname: '127.0.0.1' },
      apim: { jwt: { enable: true, enable_user_claims: true, issuer: [{ name: 'okta', issuer: IDP, jwks: { url: idp.url }, consumer_key_claim: 'cid' }] } },
    },
    apis: { ext: securedApiToml({ name: 'ExtApi', context: '/ext', production: be.url }) },
    apps: { ext: EXT_APP },
  });
  const now = Math.floor(Date.now() / 1000);
  // JSON.parse, not a literal: a literal's __proto__ would set the prototype instead of naming a claim.
  const named = Object.fromEntries([...corpus.attacks, ...corpus.controls].filter((c) => c.key !== '__proto__').map((c) => [c.key, `claim-${c.id}`]));
  const claims = JSON.parse(JSON.stringify({ iss: IDP, sub: 'user@idp', cid: 'okta-client-1', iat: now, exp: now + 300, jti: crypto.randomUUID(), ...named })
    .replace(/^\{/, '{"__proto__":{"isAdmin":true},')) as Record<string, unknown>;
  t.ok(Object.hasOwn(claims, '__proto__'), 'the token carries a claim named __proto__');

  const r = await s.call('/ext/1.0.0/x', await idp.sign(claims));
  t.equal(r.status, 200, r.text);
  const jwt = be.seen[0]?.headers['x-jwt-assertion'];
  t.ok(typeof jwt === 'string', 'the backend got a JWT');
  const payload = JSON.parse(Buffer.from(String(jwt).split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  for (const [k, v] of Object.entries(named)) t.equal(Object.hasOwn(payload, k) ? payload[k] : undefined, v, `the claim ${k}`);
  t.same(Object.hasOwn(payload, '__proto__') ? payload['__proto__'] : undefined, { isAdmin: true }, 'the claim __proto__, as data');
  t.equal(payload['http://wso2.org/claims/applicationname'], 'ExtApp', 'the gateway\'s own claims are still there');
  t.equal(payload['sub'], 'user@idp');
});
