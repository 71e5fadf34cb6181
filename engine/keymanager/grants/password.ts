import type { Client } from '../directory.js';
import { InvalidGrantError, InvalidRequestError } from '../errors.js';
import { parseScope } from '../scopes.js';
import type { TokenResponse } from '../tokens/token-issuance.js';
import { login } from '../user-store/user-store.js';
import { refreshAllowed, wantsIdToken, type GrantContext } from './grant-context.js';

/**
 * RFC 6749 §4.3: the resource owner's user name and password, checked under the back-off of failed logins
 * (per user and client address `from`); the scopes asked for are cut to those the user's roles allow.
 */
export async function passwordGrant(ctx: GrantContext, form: URLSearchParams, client: Client, from: string): Promise<TokenResponse> {
  const username = form.get('username');
  const password = form.get('password');
  if (!username) throw new InvalidRequestError('username is missing');
  if (password === null) throw new InvalidRequestError('password is missing');
  const requested = ctx.scopes.grant(parseScope(form.get('scope')), client.key.scopes);
  const user = await ctx.guard.run(() => login(ctx.o.backoff, ctx.o.users, username, password, from, 'invalid_grant'));
  if (!user) throw new InvalidGrantError('invalid resource owner credentials');
  const scopes = await ctx.guard.run(() => ctx.o.roleScopes.filter(requested, user.roles));
  return (await ctx.issuance.issue({
    client, grantType: 'password', user: user.username, userType: 'APPLICATION_USER', scopes, withRefresh: refreshAllowed(ctx, client),
    ...(wantsIdToken(scopes) ? { idToken: { authTime: ctx.now() } } : {}),
  })).response;
}
