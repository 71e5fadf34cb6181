import type { Client } from '../directory.js';
import { parseScope } from '../scopes.js';
import type { TokenResponse } from '../tokens/token-issuance.js';
import { refreshAllowed, wantsIdToken, type GrantContext } from './grant-context.js';

/** RFC 6749 §4.4: the client's own token; a refresh token and an id_token only when the configuration allows them. */
export async function clientCredentialsGrant(ctx: GrantContext, form: URLSearchParams, client: Client): Promise<TokenResponse> {
  const scopes = ctx.scopes.grant(parseScope(form.get('scope')), client.key.scopes);
  return (await ctx.issuance.issue({
    client, grantType: 'client_credentials', user: client.app.owner, userType: 'APPLICATION', scopes,
    withRefresh: ctx.o.oauth.clientCredentialsRefreshTokens && refreshAllowed(ctx, client),
    ...(ctx.o.authz.clientCredentialsIdToken && wantsIdToken(scopes) ? { idToken: {} } : {}),
  })).response;
}
