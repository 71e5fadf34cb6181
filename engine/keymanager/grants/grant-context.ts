import type { Client } from '../directory.js';
import { UnauthorizedClientError } from '../errors.js';
import type { ScopePolicy } from '../scopes.js';
import type { TokenServiceOptions } from '../tokens/options.js';
import type { TokenRevocation } from '../tokens/revocation.js';
import type { StoreGuard } from '../tokens/store-guard.js';
import type { TokenIssuance } from '../tokens/token-issuance.js';

/** What every grant works with: the service's options and clock, the scope policy, issuing and revoking tokens. */
export interface GrantContext {
  readonly o: TokenServiceOptions;
  readonly now: () => number;
  readonly scopes: ScopePolicy;
  readonly guard: StoreGuard;
  readonly issuance: TokenIssuance;
  readonly revocation: TokenRevocation;
}

/** Whether these scopes ask for an id_token (OpenID Connect Core §3.1.2.1). */
export function wantsIdToken(scopes: readonly string[]): boolean {
  return scopes.includes('openid');
}

export function refreshAllowed(ctx: GrantContext, client: Client): boolean {
  return ctx.o.oauth.grantEnabled.refresh_token && client.key.grantTypes.includes('refresh_token');
}

export function unauthorizedGrant(g: string): UnauthorizedClientError {
  return new UnauthorizedClientError(`the client may not use the ${g} grant (not in its grant types)`);
}
