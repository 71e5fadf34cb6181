import { key } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): security. Mutual TLS, audit, CORS,
 * the user store, key stores and trust stores, and the client pool of internal calls.
 */

/** [apimgt.mutual_ssl]: client certificates, also from a header set by a load balancer. */
export const MUTUAL_SSL = [
  // [apimgt.mutual_ssl]
  key('apimgt.mutual_ssl', 'certificate_header', 'string', { notes: 'default: a vendor-prefixed client-certificate header; sample SSL-CLIENT-CERT.' }),
  key('apimgt.mutual_ssl', 'enable_client_validation', 'boolean', { default: false, notes: 'true when mutual TLS ends at a load balancer.' }),
  key('apimgt.mutual_ssl', 'client_certificate_encode', 'boolean', { default: false }),
  key('apimgt.mutual_ssl', 'enable_certificate_chain_validation', 'boolean', { default: false }),
] as const;

/** [security_audit]. */
export const SECURITY_AUDIT = [
  // [security_audit]
  key('security_audit', 'api_token', 'string', { required: true, secret: true }),
  key('security_audit', 'collection_id', 'string', { required: true }),
  key('security_audit', 'global', 'boolean', { default: true }),
  key('security_audit', 'base_url', 'string', { notes: 'Audit platform URL.' }),
] as const;

/** [apim.cors]. */
export const CORS = [
  // [apim.cors]
  key('apim.cors', 'enable', 'boolean', { default: true }),
  key('apim.cors', 'allow_origins', 'string[]', { default: ['*'], notes: 'catalog type string, default *.' }),
  key('apim.cors', 'allow_methods', 'string[]', { default: ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'] }),
  key('apim.cors', 'allow_headers', 'string[]', { default: ['authorization', 'Access-Control-Allow-Origin', 'Content-Type', 'SOAPAction'] }),
  key('apim.cors', 'allow_credentials', 'boolean', { default: false, notes: 'When true the origin must not be *.' }),
] as const;

/** [user_store.properties]: the directory users come from. */
export const USER_STORE = [
  // [user_store.properties]
  key('user_store.properties', 'TenantManager', 'string', { required: true, notes: 'A JDBC tenant manager or a hybrid directory tenant manager class.' }),
  key('user_store.properties', 'MaxUserNameListLength', 'integer', { notes: '0 lists all users.' }),
  key('user_store.properties', 'ConnectionURL', 'string', { notes: 'Directory server URL.' }),
  key('user_store.properties', 'ConnectionName', 'string', { notes: 'DN used to connect; needs read and search rights.' }),
  key('user_store.properties', 'ConnectionPassword', 'string', { secret: true }),
  key('user_store.properties', 'DisplayNameAttribute', 'string', { notes: 'Optional.' }),
  key('user_store.properties', 'PasswordHashMethod', 'string', { allowed: ['SHA', 'SHA-1', 'SHA-256', 'MD5', 'PLAIN_TEXT'] }),
  key('user_store.properties', 'UserNameListFilter', 'string', { notes: 'Filter listing users.' }),
  key('user_store.properties', 'UserEntryObjectClass', 'string', { notes: 'Object class of user entries.' }),
  key('user_store.properties', 'UserSearchBase', 'string', { notes: 'DN under which users are stored.' }),
  key('user_store.properties', 'UserNameSearchFilter', 'string'),
  key('user_store.properties', 'UserNameAttribute', 'string', { notes: 'Unique user attribute.' }),
  key('user_store.properties', 'PasswordJavaScriptRegEx', 'string', { notes: 'Front-end validation pattern.' }),
  key('user_store.properties', 'UsernameJavaScriptRegEx', 'string', { notes: 'Front-end validation pattern.' }),
  key('user_store.properties', 'UsernameJavaRegEx', 'string', { notes: 'default: a pattern of length 5 to 30' }),
  key('user_store.properties', 'PasswordJavaRegEx', 'string', { notes: 'default: a pattern of length 5 to 30' }),
  key('user_store.properties', 'RolenameJavaRegEx', 'string', { notes: 'default: a pattern of length 5 to 30' }),
  key('user_store.properties', 'ReadGroups', 'boolean', { notes: 'false makes group settings optional.' }),
  key('user_store.properties', 'WriteGroups', 'boolean'),
  key('user_store.properties', 'GroupSearchBase', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupNameListFilter', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupEntryObjectClass', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupNameSearchFilter', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupNameAttribute', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'MembershipAttribute', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'MembershipAttributeRange', 'integer', { default: 1500 }),
  key('user_store.properties', 'UserRoleCacheEnabled', 'boolean', { default: true, notes: 'also written UserRolesCacheEnabled.' }),
  key('user_store.properties', 'UserRolesCacheEnabled', 'boolean', { default: true, notes: 'alternate spelling of UserRoleCacheEnabled.' }),
  key('user_store.properties', 'UserDNPattern', 'string', { notes: 'Speeds user search.' }),
  key('user_store.properties', 'ReplaceEscapeCharactersAtUserLogin', 'string'),
  key('user_store.properties', 'MultiTenantRealmConfigBuilder', 'string'),
  key('user_store.properties', 'LDAPConnectionTimeout', 'duration', { notes: 'catalog type string, ms.' }),
  key('user_store.properties', 'ConnectionRetryDelay', 'duration', { notes: 'sample key (named next to LDAPConnectionTimeout), ms.' }),
  key('user_store.properties', 'SCIMEnabled', 'boolean', { default: false }),
  key('user_store.properties', 'kdcEnabled', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('user_store.properties', 'ConnectionPoolingEnabled', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('user_store.properties', 'ReadTimeout', 'integer', { notes: 'catalog type string; ms, zero or less waits forever (so not a duration: -1 is valid).' }),
  key('user_store.properties', 'RetryAttempts', 'integer', { notes: 'catalog type string.' }),
  key('user_store.properties', 'BackLinksEnabled', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('user_store.properties', 'UserCoreCacheTimeOut', 'integer', { default: 5, notes: 'catalog type string; unit not stated.' }),
  key('user_store.properties', 'CaseInsensitiveUsername', 'string'),
  key('user_store.properties', 'AnonymousBind', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'IsBulkImportSupported', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'EmptyRolesAllowed', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'StartTLSEnabled', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'defaultRealmName', 'string', { notes: 'sample key; type not stated.' }),
] as const;

/** [custom_keystore.<name>]. */
export const CUSTOM_KEYSTORES = [
  // [custom_keystore.<name>]
  key('custom_keystore.<name>', 'file_name', 'string', { notes: 'File in the security directory.' }),
  key('custom_keystore.<name>', 'type', 'string'),
  key('custom_keystore.<name>', 'password', 'string', { secret: true }),
  key('custom_keystore.<name>', 'alias', 'string'),
  key('custom_keystore.<name>', 'key_password', 'string', { secret: true }),
] as const;

/** [apim.mediator_config.oauth.trust_store]: the trust store of calls to OAuth token endpoints. */
export const MEDIATOR_TRUST_STORE = [
  // [apim.mediator_config.oauth.trust_store]
  key('apim.mediator_config.oauth.trust_store', 'location', 'string', { notes: 'OAuth token endpoint trust store.' }),
  key('apim.mediator_config.oauth.trust_store', 'type', 'string'),
  key('apim.mediator_config.oauth.trust_store', 'password', 'string', { secret: true }),
] as const;

/** [apim.basic_authenticator]: the client pool of calls to internal services. */
export const BASIC_AUTHENTICATOR = [
  // [apim.basic_authenticator]
  key('apim.basic_authenticator', 'init_idle_capacity', 'integer', { default: 20, notes: 'Client pool for calls to internal services.' }),
  key('apim.basic_authenticator', 'max_idle', 'integer', { default: 50 }),
  key('apim.basic_authenticator', 'max_active', 'integer', { default: 100 }),
  key('apim.basic_authenticator', 'max_wait_millis', 'duration', { default: 30000, notes: 'catalog type integer ms.' }),
] as const;
