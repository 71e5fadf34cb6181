import type { RevokedToken } from '../store/index.js';
import { rejectRepeatedParameters } from './client-auth.js';
import type { Client } from './directory.js';
import { InvalidRequestError, UnsupportedGrantTypeError } from './errors.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { unauthorizedGrant, type GrantContext } from './grants/grant-context.js';
import { IMPLEMENTED_GRANTS, JWT_BEARER, KNOWN_UNIMPLEMENTED, SWITCH, type ImplementedGrant } from './grants/grant-types.js';
import { jwtBearerGrant } from './grants/jwt-bearer.js';
import { passwordGrant } from './grants/password.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import { ScopePolicy } from './scopes.js';
import { CallerAuthentication, type Caller, type UserCheck } from './tokens/caller-authentication.js';
import { TokenIntrospection, type IntrospectionResponse } from './tokens/introspection.js';
import type { TokenServiceOptions } from './tokens/options.js';
import { RevocationEvents } from './tokens/revocation-events.js';
import { TokenRevocation, type RevokeResult } from './tokens/revocation.js';
import { StoreGuard } from './tokens/store-guard.js';
import { TokenIssuance, type TokenResponse } from './tokens/token-issuance.js';

export { IMPLEMENTED_GRANTS, JWT_BEARER, type ImplementedGrant } from './grants/grant-types.js';
export type { Caller, IntrospectionResponse, RevokeResult, TokenResponse, TokenServiceOptions };

/**
 * The OAuth 2.0 token service, free of HTTP: the servlet routes and the gateway's `/token` front both call
 * it. Errors are OAuthError subclasses (RFC 6749 §5.2 codes). The token endpoint's grants are in grants/
 * (one file each); issuing, revoking, introspecting and authenticating callers in tokens/.
 */
export class TokenService {
  readonly scopes: ScopePolicy;
  private readonly guard: StoreGuard;
  private readonly callers: CallerAuthentication;
  private readonly revocation: TokenRevocation;
  private readonly introspection: TokenIntrospection;
  private readonly grants: GrantContext;

  /** The `iss` of the access tokens this key manager issues. */
  get issuer(): string {
    return this.o.oauth.issuer;
  }

  constructor(private readonly o: TokenServiceOptions) {
    this.scopes = new ScopePolicy(o.oauth.allowedScopes);
    this.guard = new StoreGuard(o.log);
    const events = new RevocationEvents(o.bus, o.log);
    this.callers = new CallerAuthentication(o, this.guard);
    this.revocation = new TokenRevocation(o, this.callers, events, this.guard);
    this.introspection = new TokenIntrospection(o, this.callers, this.guard);
    this.grants = {
      o, now: o.now ?? Date.now, scopes: this.scopes, guard: this.guard,
      issuance: new TokenIssuance(o, events, this.guard), revocation: this.revocation,
    };
  }

  // ------------------------------------------------------------------------------------------ token

  /** Whether the token endpoint implements this grant_type value. */
  implements(grantType: string): boolean {
    return (IMPLEMENTED_GRANTS as readonly string[]).includes(grantType);
  }

  /**
   * POST /oauth2/token with its form parameters and Authorization header; `from` is the client address
   * failed authentications are counted by (AuthBackoff.addressOf).
   */
  async token(form: URLSearchParams, authorization: string | undefined, from: string): Promise<TokenResponse> {
    rejectRepeatedParameters(form);
    const client = await this.authenticateClient(form, authorization, from);
    const grant = form.get('grant_type');
    if (grant === null || grant === '') throw new InvalidRequestError('grant_type is missing');
    if (!(IMPLEMENTED_GRANTS as readonly string[]).includes(grant)) {
      throw new UnsupportedGrantTypeError(KNOWN_UNIMPLEMENTED.has(grant) ? `the ${grant} grant is not supported by Sluice` : `unknown grant type "${grant}"`);
    }
    const g = grant as ImplementedGrant;
    const sw = SWITCH[g];
    if (!this.o.oauth.grantEnabled[sw]) throw new UnsupportedGrantTypeError(`the ${g} grant is disabled (oauth.grant_type.${sw}.enable = false)`);
    // refresh_token: a token of another client is invalid_grant whatever the client's grants (checked in refreshTokenGrant).
    // A key may name the jwt-bearer grant by its URN or by the catalog's name.
    if (g !== 'refresh_token' && !client.key.grantTypes.includes(g) && !client.key.grantTypes.includes(sw)) throw unauthorizedGrant(g);
    switch (g) {
      case 'client_credentials': return clientCredentialsGrant(this.grants, form, client);
      case 'password': return passwordGrant(this.grants, form, client, from);
      case 'refresh_token': return refreshTokenGrant(this.grants, form, client);
      case 'authorization_code': return authorizationCodeGrant(this.grants, form, client);
      case JWT_BEARER: return jwtBearerGrant(this.grants, form, client);
    }
  }

  // ------------------------------------------------------------------------------------------ revoke

  /** POST /oauth2/revoke (seed 000 and RFC 7009): TokenRevocation.revoke says what may be revoked by whom. */
  revoke(form: URLSearchParams, authorization: string | undefined, from: string): Promise<RevokeResult> {
    return this.revocation.revoke(form, authorization, from);
  }

  /** Revokes every active token of these clients (application or key removed) and tells the gateways. */
  revokeClients(clientIds: readonly string[]): Promise<number> {
    return this.revocation.revokeClients(clientIds);
  }

  /** Access tokens that are not valid any more but have not expired: a starting gateway loads them. */
  revokedTokens(): Promise<RevokedToken[]> {
    return this.revocation.revokedTokens();
  }

  // -------------------------------------------------------------------------------------- introspect

  /** POST /oauth2/introspect (RFC 7662) for the gateway's key validation of opaque tokens. */
  introspect(form: URLSearchParams, authorization: string | undefined, from: string): Promise<IntrospectionResponse> {
    return this.introspection.introspect(form, authorization, from);
  }

  // ---------------------------------------------------------------------------------- authentication

  /** A resource owner's user name and password checked for a gateway (Basic auth on an API). */
  authenticateUser(form: URLSearchParams, authorization: string | undefined, from: string): Promise<UserCheck> {
    return this.callers.user(form, authorization, from);
  }

  authenticateClient(form: URLSearchParams, authorization: string | undefined, from: string): Promise<Client> {
    return this.callers.client(form, authorization, from);
  }

  /** A client, or (HTTP Basic only) a user with the admin role. */
  authenticateCaller(form: URLSearchParams, authorization: string | undefined, from: string): Promise<Caller> {
    return this.callers.caller(form, authorization, from);
  }

  /** The introspection caller: the [apim.key_manager] credentials, or a user with the admin role. */
  authenticateValidator(authorization: string | undefined, from: string): Promise<string> {
    return this.callers.validator(authorization, from);
  }

  /** The address failed authentications are counted by, for a request from `peer` (routes.ts). */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    return this.o.backoff.addressOf(peer, forwardedFor);
  }

  /** Writes the warnings still counted (the key manager stops). */
  stop(): void {
    this.guard.stop();
  }
}
