import type { GrantName } from '../../../conf/views/keymanager.js';

export interface DiscoveryInput {
  readonly issuer: string;
  /** Origin the endpoints are published under (scheme, host and port of the HTTPS servlet port). */
  readonly base: string;
  readonly paths: {
    readonly authorize: string; readonly token: string; readonly revoke: string; readonly introspect: string;
    readonly jwks: string; readonly userinfo: string; readonly register: string;
  };
  readonly grantEnabled: Readonly<Record<GrantName, boolean>>;
  /** The grants the token endpoint implements, as their grant_type values. */
  readonly implemented: readonly { readonly name: GrantName; readonly value: string }[];
  readonly pkceAllowPlain: boolean;
}

/**
 * The discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2): the issuer, the endpoints, and what
 * is supported as configured (a disabled grant is not listed; plain PKCE only when allowed).
 */
export function discoveryDocument(d: DiscoveryInput): Record<string, unknown> {
  const url = (p: string): string => `${d.base}${p}`;
  const grants = d.implemented.filter((g) => d.grantEnabled[g.name]).map((g) => g.value);
  return {
    issuer: d.issuer,
    authorization_endpoint: url(d.paths.authorize),
    token_endpoint: url(d.paths.token),
    userinfo_endpoint: url(d.paths.userinfo),
    jwks_uri: url(d.paths.jwks),
    revocation_endpoint: url(d.paths.revoke),
    introspection_endpoint: url(d.paths.introspect),
    registration_endpoint: url(d.paths.register),
    scopes_supported: ['openid', 'profile', 'email', 'address', 'phone'],
    response_types_supported: d.grantEnabled.authorization_code ? ['code'] : [],
    response_modes_supported: ['query'],
    grant_types_supported: grants,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic'],
    code_challenge_methods_supported: d.pkceAllowPlain ? ['S256', 'plain'] : ['S256'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'name', 'given_name', 'family_name',
      'preferred_username', 'email', 'email_verified', 'phone_number', 'address'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    userinfo_signing_alg_values_supported: [],
  };
}
