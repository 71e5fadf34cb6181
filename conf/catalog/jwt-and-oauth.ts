import { key, itemKey } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): tokens. The backend JWT and
 * trusted issuers, the key manager as gateways see it, OAuth and its grants, and the revocation of tokens.
 */

/** [apim.jwt]: the backend JWT; [[apim.jwt.issuer]]: trusted external issuers. */
export const APIM_JWT = [
  // [apim.jwt]
  key('apim.jwt', 'enable', 'boolean', { default: false, notes: 'catalog type string, takes true/false; generate JWT inside the platform.' }),
  key('apim.jwt', 'encoding', 'string', { default: 'base64', allowed: ['base64', 'base64url'] }),
  key('apim.jwt', 'generator_impl', 'string', { notes: 'default: built-in; class name.' }),
  key('apim.jwt', 'claim_dialect', 'string', { notes: 'default: default claim dialect URI' }),
  key('apim.jwt', 'header', 'string', { default: 'X-JWT-Assertion', notes: 'Header carrying the JWT.' }),
  key('apim.jwt', 'signing_algorithm', 'string', { default: 'SHA256withRSA', notes: 'NONE disables signing.' }),
  key('apim.jwt', 'enable_user_claims', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.jwt', 'claims_extractor_impl', 'string', { notes: 'default: built-in; fully qualified class name.' }),
  key('apim.jwt', 'enable_claim_retrieval', 'boolean', { notes: 'Adds user claims to the backend JWT.' }),
  key('apim.jwt', 'gateway_generator.impl', 'string', { notes: 'default: built-in; for self-contained access tokens.' }),
  key('apim.jwt', 'gateway_generator.excluded_claims', 'string', { notes: 'Claims left out of the backend JWT.' }),
  key('apim.jwt', 'binding_federated_user_claims', 'boolean', { default: false }),
  key('apim.jwt', 'use_kid_property', 'boolean', { default: true, notes: 'kid in the backend JWT header.' }),
  key('apim.jwt', 'use_sha256_hash', 'boolean', { default: false, notes: 'Certificate header hash; SHA1 when false.' }),
  key('apim.jwt', 'encode_x5t_without_padding', 'boolean', { default: false, notes: 'x5t as unpadded base64url when true.' }),

  // [[apim.jwt.issuer]]
  itemKey('apim.jwt.issuer', 'name', 'string', { notes: 'Applies with third-party key managers.' }),
  // [apim.jwt.issuer.jwks]
  itemKey('apim.jwt.issuer', 'jwks.url', 'string', { notes: 'JWKS endpoint.' }),
  // [[apim.jwt.issuer.claim_mapping]]
  itemKey('apim.jwt.issuer.claim_mapping', 'remote_claim', 'string'),
  itemKey('apim.jwt.issuer.claim_mapping', 'local_claim', 'string'),
] as const;

/** [apim.key_manager] and [apim.http_client]: how gateways reach the key manager. */
export const KEY_MANAGER = [
  // [apim.key_manager]
  key('apim.key_manager', 'service_url', 'string', { required: true, notes: 'default: {base_url}/services/' }),
  key('apim.key_manager', 'username', 'string', { notes: 'default: super admin credentials' }),
  key('apim.key_manager', 'password', 'string', { secret: true, notes: 'default: super admin credentials' }),
  key('apim.key_manager', 'pool.init_idle_capacity', 'integer', { default: 50, notes: 'catalog type string.' }),
  key('apim.key_manager', 'pool.max_idle', 'integer', { default: 100, notes: 'catalog type string.' }),
  key('apim.key_manager', 'key_validation_handler_type', 'string', { default: 'default', allowed: ['default', 'custom'] }),
  key('apim.key_manager', 'key_validation_handler_impl', 'string', { notes: 'Required when key_validation_handler_type is custom.' }),
  key('apim.key_manager', 'enable_application_scopes_for_resident_km', 'boolean', { default: false }),
  key('apim.key_manager', 'disable_retrieve_key_mapping', 'boolean', { default: false }),

  // [apim.http_client]
  key('apim.http_client', 'max_total', 'integer', { default: 100, required: true, notes: 'Key validation calls for reference tokens.' }),
  key('apim.http_client', 'default_max_per_route', 'integer', { default: 50, required: true }),
] as const;

/** [apim.oauth_config]: the gateway's handling of OAuth headers and stored tokens. */
export const OAUTH_CONFIG = [
  // [apim.oauth_config]
  key('apim.oauth_config', 'enable_outbound_auth_header', 'boolean', { default: false, notes: "catalog type string, takes true/false; sends the client's Authorization header to the backend." }),
  key('apim.oauth_config', 'auth_header', 'string', { default: 'Authorization' }),
  key('apim.oauth_config', 'revoke_endpoint', 'string', { notes: 'default: {base_url}/oauth2/revoke' }),
  key('apim.oauth_config', 'enable_token_encryption', 'boolean', { default: false, notes: 'catalog type string, takes true/false; encrypts stored tokens.' }),
  key('apim.oauth_config', 'enable_token_hashing', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.oauth_config', 'allowed_scopes', 'string[]', { default: ['^device_.*', 'openid'], notes: 'Regular expressions; catalog: one pattern for the device_ prefix plus openid.' }),
] as const;

/** [apim.token.revocation]: how revocations reach the gateways. */
export const TOKEN_REVOCATION = [
  // [apim.token.revocation]
  key('apim.token.revocation', 'notifier_impl', 'string', { notes: 'Only for a custom implementation; sends to a message topic.' }),
  key('apim.token.revocation', 'enable_realtime_notifier', 'boolean'),
  key('apim.token.revocation', 'realtime_notifier.ttl', 'duration', { default: 5000, notes: 'ms.' }),
  key('apim.token.revocation', 'enable_persistent_notifier', 'boolean'),
  key('apim.token.revocation', 'persistent_notifier.hostname', 'string', { notes: 'Key-value store URL.' }),
  key('apim.token.revocation', 'persistent_notifier.ttl', 'duration', { default: 5000, notes: 'ms.' }),
  key('apim.token.revocation', 'persistent_notifier.username', 'string'),
  key('apim.token.revocation', 'persistent_notifier.password', 'string', { secret: true }),
] as const;

/** [oauth] and its sub-sections (token validity and clean-up, OpenID Connect, grant types), [session_data.persistence] and [oauth.token_generation]. */
export const OAUTH = [
  // [oauth]
  key('oauth', 'additional_params_from_error_url', 'boolean', { default: false }),
  key('oauth', 'allowed_scopes', 'string[]', { notes: 'Scopes accepted without validation.' }),
  key('oauth', 'timestamp_skew', 'integer', { default: 0, notes: 'seconds.' }),
  key('oauth', 'extensions.token_generator', 'string', { notes: 'default: built-in class' }),
  key('oauth', 'extensions.token_context_generator', 'string', { notes: 'default: built-in class' }),
  key('oauth', 'extensions.token_context_claim_retriever', 'string', { notes: 'default: built-in class' }),
  key('oauth', 'extensions.token_context_dialect_uri', 'string', { notes: 'default: claim dialect URI' }),

  // [oauth.token_validation]
  key('oauth.token_validation', 'app_access_token_validity', 'integer', { default: 3600, notes: 'seconds.' }),
  key('oauth.token_validation', 'user_access_token_validity', 'integer', { default: 3600, notes: 'seconds.' }),
  key('oauth.token_validation', 'refresh_token_validity', 'integer', { default: 86400, notes: 'seconds.' }),

  // [oauth.token_cleanup]
  key('oauth.token_cleanup', 'enable', 'boolean', { default: true }),
  key('oauth.token_cleanup', 'retain_access_tokens_for_auditing', 'boolean', { default: true, notes: 'Moves old invalid tokens to an audit table.' }),

  // [oauth.oidc]
  key('oauth.oidc', 'extensions.id_token_builder', 'string', { notes: 'Class name.' }),
  key('oauth.oidc', 'extensions.claim_callback_handler', 'string', { notes: 'Class name.' }),
  key('oauth.oidc', 'extensions.user_info_claim_retriever', 'string', { notes: 'Class name.' }),
  key('oauth.oidc', 'user_info.response_type', 'string', { default: 'json', allowed: ['json', 'jwt'] }),
  key('oauth.oidc', 'token_validation.id_token_validity', 'integer', { default: 3600, notes: 'seconds.' }),
  key('oauth.oidc', 'id_token.issuer', 'string', { notes: 'default: token endpoint URL' }),
  key('oauth.oidc', 'id_token.redirect_error_page', 'boolean', { default: true }),
  key('oauth.oidc', 'claims.enable_oidc_dialect', 'boolean', { default: false }),
  key('oauth.oidc', 'claims.enable_unmapped_user_attributes', 'boolean', { default: false }),

  // [oauth.grant_type.authorization_code]
  key('oauth.grant_type.authorization_code', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.authorization_code', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.password]
  key('oauth.grant_type.password', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.password', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.refresh_token]
  key('oauth.grant_type.refresh_token', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.refresh_token', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.client_credentials]
  key('oauth.grant_type.client_credentials', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.client_credentials', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.client_credentials', 'allow_refresh_tokens', 'boolean', { default: false }),
  key('oauth.grant_type.client_credentials', 'allow_id_token', 'boolean', { default: false }),
  // [oauth.grant_type.saml_bearer]
  key('oauth.grant_type.saml_bearer', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.saml_bearer', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.iwa_ntlm]
  key('oauth.grant_type.iwa_ntlm', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.iwa_ntlm', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.iwa_ntlm', 'grant_validator', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.jwt_bearer]
  key('oauth.grant_type.jwt_bearer', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.jwt_bearer', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.jwt_bearer', 'grant_validator', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.kerberos]
  key('oauth.grant_type.kerberos', 'enable', 'boolean', { default: false }),
  key('oauth.grant_type.kerberos', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.kerberos', 'grant_validator', 'string', { notes: 'default: built-in class' }),

  // [session_data.persistence]
  key('session_data.persistence', 'persistence_pool_size', 'integer', { default: 0, notes: '0 persists synchronously; above 0 asynchronously with that many threads.' }),

  // [oauth.token_generation]
  key('oauth.token_generation', 'retry_count_on_persistence_failures', 'integer', { default: 5, notes: 'Retries on a key constraint violation while storing the access token.' }),
] as const;
