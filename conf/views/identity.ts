import type { Config } from '../config.js';

/** The authorization endpoint, PKCE and OpenID Connect ([sluice.oauth], [oauth.oidc], [oauth.grant_type.*]). */
export interface AuthorizationView {
  /** ms an authorization code may be exchanged. */
  readonly codeValidityMs: number;
  /** ms the login and consent pages of one request stay usable. */
  readonly loginValidityMs: number;
  readonly pkceRequired: boolean;
  readonly pkceAllowPlain: boolean;
  /** Seconds an id_token is valid (oauth.oidc.token_validation.id_token_validity). */
  readonly idTokenValidity: number;
  /** client_credentials tokens with scope openid also get an id_token (oauth.grant_type.client_credentials.allow_id_token). */
  readonly clientCredentialsIdToken: boolean;
  /** `oauth.oidc.id_token.redirect_error_page`: errors with an unusable redirect URI are shown on a page (always: never redirected). */
  readonly redirectErrorPage: boolean;
  /** ms: the furthest exp from now a jwt-bearer assertion may carry. */
  readonly jwtBearerMaxLifetimeMs: number;
}

export function authorizationView(config: Config): AuthorizationView {
  return {
    codeValidityMs: config.get('sluice.oauth.authorization_code_validity'),
    loginValidityMs: config.get('sluice.oauth.login_validity'),
    pkceRequired: config.get('sluice.oauth.pkce_required'),
    pkceAllowPlain: config.get('sluice.oauth.pkce_allow_plain'),
    idTokenValidity: config.get('oauth.oidc.token_validation.id_token_validity'),
    clientCredentialsIdToken: config.get('oauth.grant_type.client_credentials.allow_id_token'),
    redirectErrorPage: config.get('oauth.oidc.id_token.redirect_error_page'),
    jwtBearerMaxLifetimeMs: config.get('sluice.oauth.jwt_bearer_max_lifetime'),
  };
}

/** A read-only LDAP user store: `[user_store] type = "read_only_ldap"` and its `[user_store.properties]`. */
export interface LdapUserStoreView {
  readonly url: string;
  readonly bindDn: string | undefined;
  readonly bindPassword: string | undefined;
  readonly userSearchBase: string;
  /** With `?` where the user name goes (the reference system's UserNameSearchFilter). */
  readonly userSearchFilter: string;
  readonly userNameAttribute: string;
  readonly displayNameAttribute: string | undefined;
  readonly readGroups: boolean;
  readonly groupSearchBase: string | undefined;
  readonly groupSearchFilter: string;
  readonly groupNameAttribute: string;
  readonly membershipAttribute: string;
  /** ms. */
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
  readonly startTls: boolean;
}

/** undefined: the database user store only. */
export function ldapUserStoreView(config: Config): LdapUserStoreView | undefined {
  if (config.get('user_store.type') !== 'read_only_ldap') return undefined;
  const p = (v: string | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const userObjectClass = p(config.get('user_store.properties.UserEntryObjectClass')) ?? 'person';
  const userAttr = p(config.get('user_store.properties.UserNameAttribute')) ?? 'uid';
  const readTimeout = config.get('user_store.properties.ReadTimeout');
  return {
    url: p(config.get('user_store.properties.ConnectionURL')) ?? 'ldap://localhost:389',
    bindDn: p(config.get('user_store.properties.ConnectionName')),
    bindPassword: p(config.get('user_store.properties.ConnectionPassword')),
    userSearchBase: p(config.get('user_store.properties.UserSearchBase')) ?? '',
    userSearchFilter: p(config.get('user_store.properties.UserNameSearchFilter')) ?? `(&(objectClass=${userObjectClass})(${userAttr}=?))`,
    userNameAttribute: userAttr,
    displayNameAttribute: p(config.get('user_store.properties.DisplayNameAttribute')),
    readGroups: config.get('user_store.properties.ReadGroups') ?? false,
    groupSearchBase: p(config.get('user_store.properties.GroupSearchBase')),
    groupSearchFilter: p(config.get('user_store.properties.GroupNameListFilter')) ?? `(objectClass=${p(config.get('user_store.properties.GroupEntryObjectClass')) ?? 'groupOfNames'})`,
    groupNameAttribute: p(config.get('user_store.properties.GroupNameAttribute')) ?? 'cn',
    membershipAttribute: p(config.get('user_store.properties.MembershipAttribute')) ?? 'member',
    connectTimeoutMs: config.get('user_store.properties.LDAPConnectionTimeout') ?? 5000,
    readTimeoutMs: readTimeout !== undefined && readTimeout > 0 ? readTimeout : 10_000,
    startTls: /^true$/i.test(p(config.get('user_store.properties.StartTLSEnabled')) ?? ''),
  };
}

/** One `[[apim.jwt.issuer]]`: a token issuer trusted besides Sluice's own key manager. */
export interface ExternalIssuerView {
  readonly name: string;
  /** The `iss` its tokens carry. */
  readonly issuer: string;
  readonly jwksUrl: string | undefined;
  /** PEM certificate or SPKI public key, when there is no JWKS. */
  readonly certificate: string | undefined;
  readonly consumerKeyClaim: string;
  readonly scopesClaim: string;
  readonly audience: string | undefined;
  /** ms. */
  readonly jwksRefreshMs: number;
  /** remote claim -> local claim. */
  readonly claimMappings: readonly { readonly remote: string; readonly local: string }[];
}

/** `[[apim.jwt.issuer]]` entries; `issuer` falls back to the name (the reference system matches the two). */
export function externalIssuersView(config: Config): ExternalIssuerView[] {
  return config.items('apim.jwt.issuer').map((i, n) => {
    const name = String(i['name'] ?? `issuer-${n}`);
    const jwks = i['jwks'] as Record<string, unknown> | undefined;
    const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
    const mappings = Array.isArray(i['claim_mapping']) ? i['claim_mapping'] as Record<string, unknown>[] : [];
    return {
      name,
      issuer: str(i['issuer']) ?? name,
      jwksUrl: str(i['jwks.url']) ?? str(jwks?.['url']),
      certificate: str(i['certificate']),
      consumerKeyClaim: str(i['consumer_key_claim']) ?? 'azp',
      scopesClaim: str(i['scopes_claim']) ?? 'scope',
      audience: str(i['audience']),
      jwksRefreshMs: typeof i['jwks_refresh_interval'] === 'number' ? i['jwks_refresh_interval'] : 300_000,
      claimMappings: mappings
        .filter((m) => typeof m['remote_claim'] === 'string' && typeof m['local_claim'] === 'string')
        .map((m) => ({ remote: m['remote_claim'] as string, local: m['local_claim'] as string })),
    };
  });
}
