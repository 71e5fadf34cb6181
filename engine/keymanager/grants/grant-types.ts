import type { GrantName } from '../../../conf/views/keymanager.js';

/** The grants this token service implements. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const IMPLEMENTED_GRANTS = ['client_credentials', 'password', 'refresh_token', 'authorization_code', JWT_BEARER] as const;
export type ImplementedGrant = (typeof IMPLEMENTED_GRANTS)[number];

/** The oauth.grant_type.<name>.enable switch of a grant_type value. */
export const SWITCH: Readonly<Record<ImplementedGrant, GrantName>> = {
  client_credentials: 'client_credentials', password: 'password', refresh_token: 'refresh_token', authorization_code: 'authorization_code', [JWT_BEARER]: 'jwt_bearer',
};

/** Grants the catalog knows (and URNs for them) that Sluice does not implement: unsupported_grant_type. */
export const KNOWN_UNIMPLEMENTED = new Set([
  'implicit', 'saml_bearer', 'iwa_ntlm', 'jwt_bearer', 'kerberos', 'urn:ietf:params:oauth:grant-type:saml2-bearer',
  'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:token-exchange', 'iwa:ntlm', 'kerberos',
]);
