import type { UserType } from '../../store/index.js';
import { rejectRepeatedParameters } from '../client-auth.js';
import { InvalidRequestError } from '../errors.js';
import { tokenHash } from '../token-crypto.js';
import type { CallerAuthentication } from './caller-authentication.js';
import type { TokenServiceOptions } from './options.js';
import type { StoreGuard } from './store-guard.js';
import { findToken } from './token-lookup.js';

/** RFC 7662 response, plus what the gateway needs to authorize the call. */
export type IntrospectionResponse = { readonly active: false } | {
  readonly active: true;
  readonly scope: string;
  readonly client_id: string;
  readonly username: string;
  readonly sub: string;
  readonly aud: string;
  readonly iss: string;
  readonly jti: string;
  readonly exp: number;
  readonly iat: number;
  readonly nbf: number;
  /** "Bearer" for an access token, "refresh_token" for a refresh token. */
  readonly token_type: 'Bearer' | 'refresh_token';
  /** JWT or OPAQUE. */
  readonly token_format: 'JWT' | 'OPAQUE';
  readonly application_name: string;
  readonly application_owner: string;
  readonly application_tier: string;
  readonly subscriber: string;
  readonly key_type: string;
  /** APPLICATION (client credentials) or APPLICATION_USER (a resource owner's token). */
  readonly user_type: UserType;
};

/**
 * POST /oauth2/introspect (RFC 7662) for the gateway's key validation of opaque tokens. The caller
 * authenticates with [apim.key_manager] username/password (the super admin by default) or as any user with
 * the admin role. token_type_hint orders the search; both spaces are searched (RFC 7662 §2.1).
 */
export class TokenIntrospection {
  private readonly now: () => number;

  constructor(
    private readonly o: Pick<TokenServiceOptions, 'store' | 'clients' | 'oauth' | 'now'>,
    private readonly callers: CallerAuthentication,
    private readonly guard: StoreGuard,
  ) {
    this.now = o.now ?? Date.now;
  }

  async introspect(form: URLSearchParams, authorization: string | undefined, from: string): Promise<IntrospectionResponse> {
    rejectRepeatedParameters(form);
    await this.callers.validator(authorization, from);
    const token = form.get('token');
    if (!token) throw new InvalidRequestError('token is missing');
    const hash = tokenHash(token);
    const now = this.now();
    const found = await this.guard.run(() => findToken(this.o.store.tokens, hash, form.get('token_type_hint')));
    if (!found) return { active: false };
    const { row, space: s } = found;
    const skew = this.o.oauth.timestampSkew * 1000;
    const live = row.state === 'ACTIVE' && (s === 'access' ? now + skew < row.expiresAt : (row.refreshExpiresAt ?? 0) > now);
    if (!live) return { active: false };
    const client = await this.guard.run(() => this.o.clients.find(row.clientId));
    if (!client) return { active: false };
    const exp = Math.floor((s === 'access' ? row.expiresAt : row.refreshExpiresAt!) / 1000);
    const iat = Math.floor(row.issuedAt / 1000);
    return {
      active: true,
      scope: row.scope,
      client_id: row.clientId,
      username: row.authorizedUser,
      sub: row.authorizedUser,
      aud: row.clientId,
      iss: this.o.oauth.issuer,
      jti: row.tokenId,
      exp,
      iat,
      nbf: iat,
      token_type: s === 'access' ? 'Bearer' : 'refresh_token',
      token_format: row.format,
      application_name: row.application,
      application_owner: client.app.owner,
      application_tier: client.app.throttlingPolicy,
      subscriber: client.app.owner,
      key_type: row.keyType,
      user_type: row.userType,
    };
  }
}
