import { randomUUID } from 'node:crypto';
import type { AuthorizationView } from '../../conf/views/identity.js';
import type { GrantName, OAuthView } from '../../conf/views/keymanager.js';
import { AssertionRejected, type TrustedIssuers } from '../external-issuers/trusted-issuers.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import { RepeatedWarnings } from '../log/repeated-warnings.js';
import { UniqueViolationError, isUnavailable, type ApimStore, type RevokedToken, type TokenRecord, type TokenWriter, type UserType } from '../store/index.js';
import { basicCredentials, presentedCredentials, rejectRepeatedParameters } from './client-auth.js';
import type { Client, ClientDirectory } from './directory.js';
import {
  InvalidClientError, InvalidGrantError, InvalidRequestError, InvalidScopeError, OAuthError, ServerError,
  TemporarilyUnavailableError, UnauthorizedClientError, UnsupportedGrantTypeError,
} from './errors.js';
import { ScopePolicy, parseScope } from './scopes.js';
import { safeEqual } from './secret-hash.js';
import type { SigningKeys } from './signing-keys.js';
import { randomToken, tokenHash, type TokenCodec } from './token-crypto.js';
import { ADMIN_ROLE } from './users.js';
import { login, type UserStore } from './user-store/user-store.js';
import type { RoleScopes } from './user-store/role-scopes.js';
import { verifierMatches, isWellFormedVerifier } from './authorize/pkce.js';
import { atHash } from './oidc/id-token.js';
import type { AuthBackoff } from './auth-backoff.js';

/** The grants this token service implements. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const IMPLEMENTED_GRANTS = ['client_credentials', 'password', 'refresh_token', 'authorization_code', JWT_BEARER] as const;
export type ImplementedGrant = (typeof IMPLEMENTED_GRANTS)[number];

/** The oauth.grant_type.<name>.enable switch of a grant_type value. */
const SWITCH: Readonly<Record<ImplementedGrant, GrantName>> = {
  client_credentials: 'client_credentials', password: 'password', refresh_token: 'refresh_token', authorization_code: 'authorization_code', [JWT_BEARER]: 'jwt_bearer',
};

/** Grants the catalog knows (and URNs for them) that Sluice does not implement: unsupported_grant_type. */
const KNOWN_UNIMPLEMENTED = new Set([
  'implicit', 'saml_bearer', 'iwa_ntlm', 'jwt_bearer', 'kerberos', 'urn:ietf:params:oauth:grant-type:saml2-bearer',
  'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:token-exchange', 'iwa:ntlm', 'kerberos',
]);

/** Seed 000, Token response. */
export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly scope: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  /** OpenID Connect: when the granted scopes hold `openid`. */
  readonly id_token?: string;
}

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

/** Who called a revocation: a client (its own tokens) or an administrator (any token). */
export type Caller =
  | { readonly kind: 'client'; readonly name: string; readonly client: Client }
  | { readonly kind: 'admin'; readonly name: string };

/** The outcome of POST /oauth2/revoke: the seed's headers without the fixed ones. */
export interface RevokeResult {
  readonly authorizedUser: string;
  /** Identifier (jti, or the hash of an opaque token) of the access token revoked. */
  readonly revokedAccessToken?: string;
  /** The refresh token revoked, when the request named one. */
  readonly revokedRefreshToken?: string;
}

export interface TokenServiceOptions {
  readonly store: ApimStore;
  readonly writer: TokenWriter;
  readonly clients: ClientDirectory;
  readonly users: UserStore;
  /** The back-off of failed authentications, shared with the admin API's logins. */
  readonly backoff: AuthBackoff;
  readonly roleScopes: RoleScopes;
  readonly authz: AuthorizationView;
  /** [[apim.jwt.issuer]]: issuers whose assertions the jwt-bearer grant accepts. */
  readonly trustedIssuers: TrustedIssuers;
  readonly keys: SigningKeys;
  readonly codec: TokenCodec;
  readonly bus: EventBus;
  readonly oauth: OAuthView;
  readonly retryCount: number;
  /** [apim.key_manager] credentials the gateway presents to the introspection endpoint. */
  readonly validation: { readonly username: string; readonly password: string | undefined };
  readonly log: Logger;
  readonly now?: () => number;
  /** The random text of opaque access tokens and refresh tokens (tests force clashes with it). */
  readonly randomToken?: () => string;
  /** The jti of JWT access tokens. */
  readonly randomId?: () => string;
}

interface IssueParams {
  readonly client: Client;
  readonly grantType: ImplementedGrant;
  readonly user: string;
  readonly userType: UserType;
  readonly scopes: readonly string[];
  readonly withRefresh: boolean;
  /** Refresh grant: the refresh token being used (its hash). */
  readonly rotate?: string;
  readonly parentTokenId?: string;
  /** OpenID Connect: an id_token goes with the tokens (the scopes hold openid). */
  readonly idToken?: { readonly nonce?: string; readonly authTime?: number };
}

/**
 * The OAuth 2.0 token service, free of HTTP: the servlet routes and the gateway's `/token` front both call
 * it. Errors are OAuthError subclasses (RFC 6749 §5.2 codes).
 */
export class TokenService {
  readonly scopes: ScopePolicy;
  private readonly now: () => number;
  private readonly random: () => string;
  private readonly randomId: () => string;
  /** Store failures come once per request while they last: one line per window, with a count. */
  private readonly warnings: RepeatedWarnings;

  /** The `iss` of the access tokens this key manager issues. */
  get issuer(): string {
    return this.o.oauth.issuer;
  }

  constructor(private readonly o: TokenServiceOptions) {
    this.scopes = new ScopePolicy(o.oauth.allowedScopes);
    this.now = o.now ?? Date.now;
    this.random = o.randomToken ?? randomToken;
    this.randomId = o.randomId ?? randomUUID;
    this.warnings = new RepeatedWarnings(o.log);
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
    // refresh_token: a token of another client is invalid_grant whatever the client's grants (checked in refresh()).
    // A key may name the jwt-bearer grant by its URN or by the catalog's name.
    if (g !== 'refresh_token' && !client.key.grantTypes.includes(g) && !client.key.grantTypes.includes(sw)) throw unauthorizedGrant(g);
    switch (g) {
      case 'client_credentials': return this.clientCredentials(form, client);
      case 'password': return this.password(form, client, from);
      case 'refresh_token': return this.refresh(form, client);
      case 'authorization_code': return this.authorizationCode(form, client);
      case JWT_BEARER: return this.jwtBearer(form, client);
    }
  }

  /**
   * RFC 7523 §2.1: a JWT from a trusted issuer ([[apim.jwt.issuer]]) stands for its subject. The client
   * authenticates as for any grant; the assertion is checked by TrustedIssuers (signature, iss, aud naming
   * this key manager, exp within jwt_bearer_max_lifetime, sub, jti not replayed). The token is a user token
   * for `sub` (role-bound scopes only through the roles of a user of that name in the store); no refresh token
   * (RFC 7521 §4.1: the client can present a new assertion).
   */
  private async jwtBearer(form: URLSearchParams, client: Client): Promise<TokenResponse> {
    const assertion = form.get('assertion');
    if (!assertion) throw new InvalidRequestError('assertion is missing');
    const requested = this.scopes.grant(parseScope(form.get('scope')), client.key.scopes);
    const now = this.now();
    let sub: string;
    try {
      const { claims } = await this.o.trustedIssuers.verify(assertion, {
        audiences: this.assertionAudiences(), maxLifetimeMs: this.o.authz.jwtBearerMaxLifetimeMs, clockSkewSec: this.o.oauth.timestampSkew, now,
      });
      sub = String(claims.sub);
    } catch (err) {
      if (err instanceof AssertionRejected) throw new InvalidGrantError(err.message);
      throw this.storeError(err);
    }
    const user = await this.guard(() => this.o.users.find(sub));
    const scopes = await this.guard(() => this.o.roleScopes.filter(requested, user?.roles ?? []));
    return (await this.issue({ client, grantType: JWT_BEARER, user: sub, userType: 'APPLICATION_USER', scopes, withRefresh: false })).response;
  }

  /** What an assertion's aud may name: the issuer and the token endpoint (RFC 7523 §3 item 3). */
  private assertionAudiences(): string[] {
    const out = [this.o.oauth.issuer];
    try { out.push(`${new URL(this.o.oauth.issuer).origin}/oauth2/token`); } catch { /* an issuer that is not a URL */ }
    return [...new Set(out)];
  }

  /** Whether these scopes ask for an id_token (OpenID Connect Core §3.1.2.1). */
  private static openid(scopes: readonly string[]): boolean {
    return scopes.includes('openid');
  }

  private refreshAllowed(client: Client): boolean {
    return this.o.oauth.grantEnabled.refresh_token && client.key.grantTypes.includes('refresh_token');
  }

  private async clientCredentials(form: URLSearchParams, client: Client): Promise<TokenResponse> {
    const scopes = this.scopes.grant(parseScope(form.get('scope')), client.key.scopes);
    return (await this.issue({
      client, grantType: 'client_credentials', user: client.app.owner, userType: 'APPLICATION', scopes,
      withRefresh: this.o.oauth.clientCredentialsRefreshTokens && this.refreshAllowed(client),
      ...(this.o.authz.clientCredentialsIdToken && TokenService.openid(scopes) ? { idToken: {} } : {}),
    })).response;
  }

  private async password(form: URLSearchParams, client: Client, from: string): Promise<TokenResponse> {
    const username = form.get('username');
    const password = form.get('password');
    if (!username) throw new InvalidRequestError('username is missing');
    if (password === null) throw new InvalidRequestError('password is missing');
    const requested = this.scopes.grant(parseScope(form.get('scope')), client.key.scopes);
    const user = await this.guard(() => login(this.backoff, this.o.users, username, password, from, 'invalid_grant'));
    if (!user) throw new InvalidGrantError('invalid resource owner credentials');
    const scopes = await this.guard(() => this.o.roleScopes.filter(requested, user.roles));
    return (await this.issue({
      client, grantType: 'password', user: user.username, userType: 'APPLICATION_USER', scopes, withRefresh: this.refreshAllowed(client),
      ...(TokenService.openid(scopes) ? { idToken: { authTime: this.now() } } : {}),
    })).response;
  }

  /**
   * RFC 6749 §4.1.3 with RFC 7636 §4.5-4.6. The code is looked up by hash; another client's code is
   * invalid_grant and left alone (its owner may still use it). The owner's first presentation uses it up,
   * whatever follows: a wrong redirect_uri or code_verifier wastes it. A code presented twice revokes the
   * tokens it produced (§4.1.2). A code_verifier for a code issued without a challenge is refused (PKCE
   * downgrade, RFC 9700 §2.1.1).
   */
  private async authorizationCode(form: URLSearchParams, client: Client): Promise<TokenResponse> {
    const code = form.get('code');
    if (!code) throw new InvalidRequestError('code is missing');
    const verifier = form.get('code_verifier');
    const redirectUri = form.get('redirect_uri');
    const hash = tokenHash(code);
    const found = await this.guard(() => this.o.store.codes.find(hash));
    if (!found || found.clientId !== client.key.clientId) throw new InvalidGrantError('the authorization code is invalid, expired, used, or was issued to another client');
    const now = this.now();
    const r = await this.guard(() => this.o.store.codes.redeem(hash, now));
    if (r.kind === 'reused') {
      if (r.tokenId) await this.revokeIssuance(r.tokenId, 'authorization code presented again');
      this.o.log.warn({ client: client.key.clientId, tokenId: r.tokenId }, 'an authorization code was presented twice; the tokens it produced are revoked');
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
    const issued = await this.issue({
      client, grantType: 'authorization_code', user: c.authorizedUser, userType: 'APPLICATION_USER', scopes,
      withRefresh: this.refreshAllowed(client),
      ...(TokenService.openid(scopes) ? { idToken: { authTime: c.authTime, ...(c.nonce !== null ? { nonce: c.nonce } : {}) } } : {}),
    });
    await this.guard(() => this.o.store.codes.setToken(hash, issued.tokenId));
    return issued.response;
  }

  private async refresh(form: URLSearchParams, client: Client): Promise<TokenResponse> {
    const rt = form.get('refresh_token');
    if (!rt) throw new InvalidRequestError('refresh_token is missing');
    const requested = parseScope(form.get('scope'));
    const hash = tokenHash(rt);
    const row = await this.guard(() => this.o.store.tokens.findByRefreshHash(hash));
    // An unknown token and another client's token get the same answer (RFC 6749 §5.2: "issued to another client").
    if (!row || row.clientId !== client.key.clientId) throw new InvalidGrantError('the refresh token is invalid or was issued to another client');
    if (row.state !== 'ACTIVE') throw new InvalidGrantError(row.state === 'INACTIVE' ? 'the refresh token has already been used' : 'the refresh token has been revoked');
    if ((row.refreshExpiresAt ?? 0) <= this.now()) throw new InvalidGrantError('the refresh token has expired');
    if (!client.key.grantTypes.includes('refresh_token')) throw unauthorizedGrant('refresh_token');
    const original = row.scope.split(' ').filter(Boolean);
    const extra = requested.filter((s) => !original.includes(s));
    if (extra.length) throw new InvalidScopeError(`the refresh cannot add scopes the original grant did not have: ${extra.join(' ')}`);
    const scopes = requested.length ? requested : original;
    return (await this.issue({
      client, grantType: 'refresh_token', user: row.authorizedUser, userType: row.userType,
      scopes, withRefresh: true, rotate: hash, parentTokenId: row.tokenId,
      // A refreshed id_token carries no nonce (OpenID Connect Core §12.2).
      ...(TokenService.openid(scopes) && (row.userType === 'APPLICATION_USER' || this.o.authz.clientCredentialsIdToken) ? { idToken: {} } : {}),
    })).response;
  }

  private async issue(p: IssueParams): Promise<{ response: TokenResponse; tokenId: string }> {
    const { oauth, retryCount, log } = this.o;
    const validity = p.userType === 'APPLICATION' ? oauth.appAccessTokenValidity : oauth.userAccessTokenValidity;
    for (let attempt = 0; ; attempt++) {
      const now = this.now();
      const minted = await this.mint(p, now, validity);
      try {
        if (p.rotate) {
          const r = await this.o.store.tokens.rotateRefresh(p.rotate, p.client.key.clientId, now, minted.record);
          if (r.kind === 'lost') throw new InvalidGrantError('the refresh token has already been used');
          // The replaced access token stops working with its refresh token.
          if (r.previous.expiresAt > now) await this.publishRevoked([toRevoked(r.previous)], now);
        } else {
          await this.o.writer.write(minted.record);
        }
        return { response: minted.response, tokenId: minted.record.tokenId };
      } catch (err) {
        if (err instanceof UniqueViolationError) {
          if (attempt < retryCount) {
            log.warn({ attempt: attempt + 1, of: retryCount, client: p.client.key.clientId }, 'token key clash in the store; retrying with a new token');
            continue;
          }
          log.error({ retries: retryCount, client: p.client.key.clientId }, 'token key clash persisted (oauth.token_generation.retry_count_on_persistence_failures)');
          throw new ServerError('the token could not be stored');
        }
        throw this.storeError(err);
      }
    }
  }

  private async mint(p: IssueParams, now: number, validity: number): Promise<{ record: TokenRecord; response: TokenResponse }> {
    const { app, key } = p.client;
    const iat = Math.floor(now / 1000);
    const exp = iat + validity;
    const scope = p.scopes.join(' ');
    let access: string;
    let tokenId: string;
    if (app.tokenType === 'OPAQUE') {
      access = this.random();
      tokenId = tokenHash(access);
    } else {
      tokenId = this.randomId();
      access = await this.o.keys.sign({
        iss: this.o.oauth.issuer,
        sub: p.user,
        aud: key.clientId,
        azp: key.clientId,
        client_id: key.clientId,
        scope,
        jti: tokenId,
        iat,
        nbf: iat,
        exp,
        aut: p.userType,
        keytype: key.keyType,
        application: { name: app.name, owner: app.owner, tier: app.throttlingPolicy },
        subscriber: app.owner,
      });
    }
    const refresh = p.withRefresh ? this.random() : undefined;
    const refreshExpiresAt = refresh ? now + this.o.oauth.refreshTokenValidity * 1000 : null;
    const record: TokenRecord = {
      tokenId,
      accessTokenHash: tokenHash(access),
      accessTokenStored: this.o.codec.protect(access),
      refreshTokenHash: refresh ? tokenHash(refresh) : null,
      refreshTokenStored: refresh ? this.o.codec.protect(refresh) : null,
      format: app.tokenType,
      clientId: key.clientId,
      application: app.name,
      keyType: key.keyType,
      authorizedUser: p.user,
      userType: p.userType,
      scope,
      grantType: p.grantType,
      issuedAt: iat * 1000,
      expiresAt: exp * 1000,
      refreshExpiresAt,
      state: 'ACTIVE',
      stateChangedAt: null,
      parentTokenId: p.parentTokenId ?? null,
    };
    const idToken = p.idToken ? await this.o.keys.sign({
      iss: this.o.oauth.issuer,
      sub: p.user,
      aud: key.clientId,
      azp: key.clientId,
      iat,
      exp: iat + this.o.authz.idTokenValidity,
      ...(p.idToken.authTime !== undefined ? { auth_time: Math.floor(p.idToken.authTime / 1000) } : {}),
      ...(p.idToken.nonce !== undefined ? { nonce: p.idToken.nonce } : {}),
      at_hash: atHash(access),
    }, 'JWT') : undefined;
    const response: TokenResponse = {
      access_token: access,
      ...(refresh ? { refresh_token: refresh } : {}),
      scope,
      token_type: 'Bearer',
      expires_in: validity,
      ...(idToken ? { id_token: idToken } : {}),
    };
    return { record, response };
  }

  // ------------------------------------------------------------------------------------------ revoke

  /**
   * POST /oauth2/revoke (seed 000 and RFC 7009). Both spaces are searched: the hinted one first (access first
   * without a hint). Seed 000 searches only the hinted space, but RFC 7009 §2.1 says the server MUST extend
   * its search when the hint is wrong: a wrong hint must not leave a token alive (docs/decisions.md).
   * Unknown token: nothing revoked, still a success. A client may
   * revoke only the tokens issued to it (another client's token: unauthorized_client, nothing revoked); an
   * administrator (Basic with a user holding the admin role) may revoke any token.
   */
  async revoke(form: URLSearchParams, authorization: string | undefined, from: string): Promise<RevokeResult> {
    rejectRepeatedParameters(form);
    const caller = await this.authenticateCaller(form, authorization, from);
    const token = form.get('token');
    if (!token) throw new InvalidRequestError('token is missing');
    const spaces = searchOrder(form.get('token_type_hint'));
    const hash = tokenHash(token);
    let row: TokenRecord | undefined;
    let space: 'access' | 'refresh' = 'access';
    for (const s of spaces) {
      row = await this.guard(() => (s === 'access' ? this.o.store.tokens.findByAccessHash(hash) : this.o.store.tokens.findByRefreshHash(hash)));
      if (row) { space = s; break; }
    }
    if (!row) return { authorizedUser: caller.name };
    if (caller.kind === 'client' && row.clientId !== caller.client.key.clientId) {
      throw new UnauthorizedClientError('the token was not issued to this client');
    }
    const now = this.now();
    const changed = await this.guard(() => this.o.store.tokens.revoke(row!.tokenId, now));
    if (changed && row.expiresAt > now) await this.publishRevoked([toRevoked(row)], now);
    this.o.log.info({ tokenId: row.tokenId, client: row.clientId, by: caller.name, space, changed }, 'token revoked');
    return {
      authorizedUser: caller.name,
      revokedAccessToken: row.tokenId,
      ...(space === 'refresh' ? { revokedRefreshToken: token } : {}),
    };
  }

  /** Revokes one issuance by its id (a code presented twice) and tells the gateways. */
  private async revokeIssuance(tokenId: string, why: string): Promise<void> {
    const row = await this.guard(() => this.o.store.tokens.findById(tokenId));
    if (!row) return;
    const now = this.now();
    const changed = await this.guard(() => this.o.store.tokens.revoke(tokenId, now));
    if (changed && row.expiresAt > now) await this.publishRevoked([toRevoked(row)], now);
    this.o.log.info({ tokenId, client: row.clientId, why, changed }, 'token revoked');
  }

  /** Revokes every active token of these clients (application or key removed) and tells the gateways. */
  async revokeClients(clientIds: readonly string[]): Promise<number> {
    if (clientIds.length === 0) return 0;
    const now = this.now();
    const revoked = await this.guard(() => this.o.store.tokens.revokeByClients(clientIds, now));
    await this.publishRevoked(revoked.filter((r) => r.expiresAt > now), now);
    if (revoked.length) this.o.log.info({ clients: clientIds, tokens: revoked.length }, 'tokens of removed clients revoked');
    return revoked.length;
  }

  /** Access tokens that are not valid any more but have not expired: a starting gateway loads them. */
  async revokedTokens(): Promise<RevokedToken[]> {
    const now = this.now();
    const [tokens, keys] = await Promise.all([
      this.guard(() => this.o.store.tokens.listInvalidUnexpired(now)),
      this.guard(() => this.o.store.apiKeys.listRevokedUnexpired(now)),
    ]);
    return [...tokens, ...keys.map((k) => ({ tokenId: k.keyId, format: 'JWT' as const, clientId: '', expiresAt: k.expiresAt }))];
  }

  private async publishRevoked(list: readonly RevokedToken[], now: number): Promise<void> {
    for (const r of list) {
      try {
        await this.o.bus.publish({ type: 'token.revoked', tokenId: r.tokenId, tokenType: r.format, expiresAt: r.expiresAt, consumerKey: r.clientId, revokedAt: now });
      } catch (err) {
        // The store already says revoked; a gateway that missed the event reloads revokedTokens() on start.
        this.o.log.error({ err: (err as Error).message, tokenId: r.tokenId }, 'a token.revoked subscriber failed');
      }
    }
  }

  // -------------------------------------------------------------------------------------- introspect

  /**
   * POST /oauth2/introspect (RFC 7662) for the gateway's key validation of opaque tokens. The caller
   * authenticates with [apim.key_manager] username/password (the super admin by default) or as any user with
   * the admin role. token_type_hint orders the search; both spaces are searched (RFC 7662 §2.1).
   */
  async introspect(form: URLSearchParams, authorization: string | undefined, from: string): Promise<IntrospectionResponse> {
    rejectRepeatedParameters(form);
    await this.authenticateValidator(authorization, from);
    const token = form.get('token');
    if (!token) throw new InvalidRequestError('token is missing');
    const order = searchOrder(form.get('token_type_hint'));
    const hash = tokenHash(token);
    const now = this.now();
    for (const s of order) {
      const row = await this.guard(() => (s === 'access' ? this.o.store.tokens.findByAccessHash(hash) : this.o.store.tokens.findByRefreshHash(hash)));
      if (!row) continue;
      const skew = this.o.oauth.timestampSkew * 1000;
      const live = row.state === 'ACTIVE' && (s === 'access' ? now + skew < row.expiresAt : (row.refreshExpiresAt ?? 0) > now);
      if (!live) return { active: false };
      const client = await this.guard(() => this.o.clients.find(row.clientId));
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
    return { active: false };
  }

  // ---------------------------------------------------------------------------------- authentication

  /**
   * A resource owner's user name and password checked for a gateway (Basic auth on an API): the caller
   * authenticates as for introspection. Answers the user's roles and the scopes they bind, or inactive.
   */
  async authenticateUser(form: URLSearchParams, authorization: string | undefined, from: string): Promise<{ active: false } | { active: true; username: string; roles: readonly string[]; scopes: readonly string[] }> {
    rejectRepeatedParameters(form);
    await this.authenticateValidator(authorization, from);
    const username = form.get('username');
    const password = form.get('password');
    if (!username || password === null) throw new InvalidRequestError('username and password are required');
    // The gateway names the client's address: guesses through an API's Basic auth back off per user and
    // client, as at the token endpoint (429, which the gateway turns into 900911 with Retry-After).
    const clientAddress = form.get('client_address');
    const user = await this.guard(() => login(this.backoff, this.o.users, username, password, clientAddress || from, 'invalid_grant'));
    if (!user) return { active: false };
    return { active: true, username: user.username, roles: user.roles, scopes: await this.guard(() => this.o.roleScopes.scopesOf(user.roles)) };
  }

  // Every check of a caller's secret runs under the back-off of failed authentications (AuthBackoff, shared
  // with the user directory): one identity from one address, counted once per request.

  async authenticateClient(form: URLSearchParams, authorization: string | undefined, from: string): Promise<Client> {
    const creds = presentedCredentials(form, authorization);
    if (!creds) throw new InvalidClientError('client authentication is required: HTTP Basic with the client id and secret, or client_id and client_secret in the body');
    const client = await this.guard(() => this.backoff.attempt(creds.id, from, () => this.o.clients.authenticate(creds.id, creds.secret)));
    if (!client) throw new InvalidClientError();
    return client;
  }

  /** A client, or (HTTP Basic only) a user with the admin role. */
  async authenticateCaller(form: URLSearchParams, authorization: string | undefined, from: string): Promise<Caller> {
    const creds = presentedCredentials(form, authorization);
    if (!creds) throw new InvalidClientError('client authentication is required: HTTP Basic with the client id and secret, or client_id and client_secret in the body');
    const caller = await this.guard(() => this.backoff.attempt<Caller>(creds.id, from, async () => {
      const client = await this.o.clients.authenticate(creds.id, creds.secret);
      if (client) return { kind: 'client', name: client.key.clientId, client };
      if (creds.method !== 'basic') return undefined;
      const user = await this.o.users.authenticate(creds.id, creds.secret);
      return user && user.roles.includes(ADMIN_ROLE) ? { kind: 'admin', name: user.username } : undefined;
    }));
    if (!caller) throw new InvalidClientError();
    return caller;
  }

  /** The introspection caller: the [apim.key_manager] credentials, or a user with the admin role. */
  async authenticateValidator(authorization: string | undefined, from: string): Promise<string> {
    const basic = basicCredentials(authorization);
    if (!basic) throw new InvalidClientError('HTTP Basic authentication with the key manager credentials is required');
    const v = this.o.validation;
    const name = await this.guard(() => this.backoff.attempt(basic.id, from, async () => {
      if (v.password !== undefined && safeEqual(basic.id, v.username) && safeEqual(basic.secret, v.password)) return basic.id;
      const user = await this.o.users.authenticate(basic.id, basic.secret);
      return user && user.roles.includes(ADMIN_ROLE) ? user.username : undefined;
    }));
    if (name === undefined) throw new InvalidClientError();
    return name;
  }

  private get backoff(): AuthBackoff {
    return this.o.backoff;
  }

  /** The address failed authentications are counted by, for a request from `peer` (routes.ts). */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    return this.backoff.addressOf(peer, forwardedFor);
  }

  /** Store failures become 503 (unreachable) or 500; OAuth errors pass through. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try { return await fn(); } catch (err) { throw this.storeError(err); }
  }

  private storeError(err: unknown): Error {
    if (err instanceof OAuthError) return err;
    const e = err as Error & { code?: string };
    if (isUnavailable(err)) {
      // A full disk, a lost database or a directory that is down fails every request until it is fixed: a
      // line per window, not per request.
      this.warnings.error('store unavailable', { err: e.message }, 'token or user store unavailable: answering 503 temporarily_unavailable');
      return new TemporarilyUnavailableError('the token or user store is unavailable; try again');
    }
    this.warnings.error(`failure ${e?.name ?? ''} ${e?.code ?? ''}`, { err: e?.stack ?? String(err) }, 'token service failure');
    return new ServerError('internal error; see the key manager log');
  }

  /** Writes the warnings still counted (the key manager stops). */
  stop(): void {
    this.warnings.stop();
  }
}

/** Both token spaces, the hinted one first; an unknown hint is ignored (RFC 7009 §2.1, RFC 7662 §2.1). */
function searchOrder(hint: string | null): readonly ('access' | 'refresh')[] {
  return hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
}

function unauthorizedGrant(g: string): UnauthorizedClientError {
  return new UnauthorizedClientError(`the client may not use the ${g} grant (not in its grant types)`);
}

function toRevoked(r: TokenRecord): RevokedToken {
  return { tokenId: r.tokenId, format: r.format, clientId: r.clientId, expiresAt: r.expiresAt };
}
