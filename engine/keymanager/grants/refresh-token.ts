import type { Client } from '../directory.js';
import { InvalidGrantError, InvalidRequestError, InvalidScopeError } from '../errors.js';
import { parseScope } from '../scopes.js';
import { tokenHash } from '../token-crypto.js';
import type { TokenResponse } from '../tokens/token-issuance.js';
import { unauthorizedGrant, wantsIdToken, type GrantContext } from './grant-context.js';

/**
 * RFC 6749 §6: new tokens for a refresh token of this client, which they replace (rotation), with the
 * original scopes or fewer.
 */
export async function refreshTokenGrant(ctx: GrantContext, form: URLSearchParams, client: Client): Promise<TokenResponse> {
  const rt = form.get('refresh_token');
  if (!rt) throw new InvalidRequestError('refresh_token is missing');
  const requested = parseScope(form.get('scope'));
  const hash = tokenHash(rt);
  const row = await ctx.guard.run(() => ctx.o.store.tokens.findByRefreshHash(hash));
  // An unknown token and another client's token get the same answer (RFC 6749 §5.2: "issued to another client").
  if (!row || row.clientId !== client.key.clientId) throw new InvalidGrantError('the refresh token is invalid or was issued to another client');
  if (row.state !== 'ACTIVE') throw new InvalidGrantError(row.state === 'INACTIVE' ? 'the refresh token has already been used' : 'the refresh token has been revoked');
  if ((row.refreshExpiresAt ?? 0) <= ctx.now()) throw new InvalidGrantError('the refresh token has expired');
  if (!client.key.grantTypes.includes('refresh_token')) throw unauthorizedGrant('refresh_token');
  const original = row.scope.split(' ').filter(Boolean);
  const extra = requested.filter((s) => !original.includes(s));
  if (extra.length) throw new InvalidScopeError(`the refresh cannot add scopes the original grant did not have: ${extra.join(' ')}`);
  const scopes = requested.length ? requested : original;
  return (await ctx.issuance.issue({
    client, grantType: 'refresh_token', user: row.authorizedUser, userType: row.userType,
    scopes, withRefresh: true, rotate: hash, parentTokenId: row.tokenId,
    // A refreshed id_token carries no nonce (OpenID Connect Core §12.2).
    ...(wantsIdToken(scopes) && (row.userType === 'APPLICATION_USER' || ctx.o.authz.clientCredentialsIdToken) ? { idToken: {} } : {}),
  })).response;
}
