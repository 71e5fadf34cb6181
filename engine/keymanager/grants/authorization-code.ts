import { isWellFormedVerifier, verifierMatches } from '../authorize/pkce.js';
import type { Client } from '../directory.js';
import { InvalidGrantError, InvalidRequestError } from '../errors.js';
import { tokenHash } from '../token-crypto.js';
import type { TokenResponse } from '../tokens/token-issuance.js';
import { refreshAllowed, wantsIdToken, type GrantContext } from './grant-context.js';

/**
 * RFC 6749 §4.1.3 with RFC 7636 §4.5-4.6. The code is looked up by hash; another client's code is
 * invalid_grant and left alone (its owner may still use it). The owner's first presentation uses it up,
 * whatever follows: a wrong redirect_uri or code_verifier wastes it. A code presented twice revokes the
 * tokens it produced (§4.1.2). A code_verifier for a code issued without a challenge is refused (PKCE
 * downgrade, RFC 9700 §2.1.1).
 */
export async function authorizationCodeGrant(ctx: GrantContext, form: URLSearchParams, client: Client): Promise<TokenResponse> {
  const { store, log } = ctx.o;
  const code = form.get('code');
  if (!code) throw new InvalidRequestError('code is missing');
  const verifier = form.get('code_verifier');
  const redirectUri = form.get('redirect_uri');
  const hash = tokenHash(code);
  const found = await ctx.guard.run(() => store.codes.find(hash));
  if (!found || found.clientId !== client.key.clientId) throw new InvalidGrantError('the authorization code is invalid, expired, used, or was issued to another client');
  const now = ctx.now();
  const r = await ctx.guard.run(() => store.codes.redeem(hash, now));
  if (r.kind === 'reused') {
    if (r.tokenId) await ctx.revocation.revokeIssuance(r.tokenId, 'authorization code presented again');
    log.warn({ client: client.key.clientId, tokenId: r.tokenId }, 'an authorization code was presented twice; the tokens it produced are revoked');
    throw new InvalidGrantError('the authorization code is invalid, expired, used, or was issued to another client');
  }
  if (r.kind !== 'redeemed') throw new InvalidGrantError('the authorization code is invalid, expired, used, or was issued to another client');
  const c = r.code;
  if (c.redirectUri !== '' ? redirectUri !== c.redirectUri : redirectUri !== null && redirectUri !== client.key.callbackUrl) {
    throw new InvalidGrantError('redirect_uri does not match the one of the authorization request');
  }
  if (c.codeChallenge && c.codeChallengeMethod) {
    if (verifier === null) throw new InvalidGrantError('code_verifier is missing: the authorization request carried a code_challenge');
    if (!isWellFormedVerifier(verifier) || !verifierMatches(verifier, c.codeChallenge, c.codeChallengeMethod)) throw new InvalidGrantError('code_verifier does not match the code_challenge');
  } else if (verifier !== null) {
    throw new InvalidGrantError('code_verifier given, but the authorization request carried no code_challenge');
  }
  const scopes = c.scope.split(' ').filter(Boolean);
  const issued = await ctx.issuance.issue({
    client, grantType: 'authorization_code', user: c.authorizedUser, userType: 'APPLICATION_USER', scopes,
    withRefresh: refreshAllowed(ctx, client),
    ...(wantsIdToken(scopes) ? { idToken: { authTime: c.authTime, ...(c.nonce !== null ? { nonce: c.nonce } : {}) } } : {}),
  });
  await ctx.guard.run(() => store.codes.setToken(hash, issued.tokenId));
  return issued.response;
}
