import { AssertionRejected } from '../../external-issuers/trusted-issuers.js';
import type { Client } from '../directory.js';
import { InvalidGrantError, InvalidRequestError } from '../errors.js';
import { parseScope } from '../scopes.js';
import type { TokenResponse } from '../tokens/token-issuance.js';
import type { GrantContext } from './grant-context.js';
import { JWT_BEARER } from './grant-types.js';

/**
 * RFC 7523 §2.1: a JWT from a trusted issuer ([[apim.jwt.issuer]]) stands for its subject. The client
 * authenticates as for any grant; the assertion is checked by TrustedIssuers (signature, iss, aud naming
 * this key manager, exp within jwt_bearer_max_lifetime, sub, jti not replayed). The token is a user token
 * for `sub` (role-bound scopes only through the roles of a user of that name in the store); no refresh token
 * (RFC 7521 §4.1: the client can present a new assertion).
 */
export async function jwtBearerGrant(ctx: GrantContext, form: URLSearchParams, client: Client): Promise<TokenResponse> {
  const assertion = form.get('assertion');
  if (!assertion) throw new InvalidRequestError('assertion is missing');
  const requested = ctx.scopes.grant(parseScope(form.get('scope')), client.key.scopes);
  const now = ctx.now();
  let sub: string;
  try {
    const { claims } = await ctx.o.trustedIssuers.verify(assertion, {
      audiences: assertionAudiences(ctx.o.oauth.issuer), maxLifetimeMs: ctx.o.authz.jwtBearerMaxLifetimeMs, clockSkewSec: ctx.o.oauth.timestampSkew, now,
    });
    sub = String(claims.sub);
  } catch (err) {
    if (err instanceof AssertionRejected) throw new InvalidGrantError(err.message);
    throw ctx.guard.error(err);
  }
  const user = await ctx.guard.run(() => ctx.o.users.find(sub));
  const scopes = await ctx.guard.run(() => ctx.o.roleScopes.filter(requested, user?.roles ?? []));
  return (await ctx.issuance.issue({ client, grantType: JWT_BEARER, user: sub, userType: 'APPLICATION_USER', scopes, withRefresh: false })).response;
}

/** What an assertion's aud may name: the issuer and the token endpoint (RFC 7523 §3 item 3). */
function assertionAudiences(issuer: string): string[] {
  const out = [issuer];
  try { out.push(`${new URL(issuer).origin}/oauth2/token`); } catch { /* an issuer that is not a URL */ }
  return [...new Set(out)];
}
