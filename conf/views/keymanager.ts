import fs from 'node:fs';
import type { Config } from '../config.js';

/** The grants the token endpoint knows, with their `oauth.grant_type.<grant>.enable` switch. */
export type GrantName = 'client_credentials' | 'password' | 'refresh_token' | 'authorization_code'
  | 'saml_bearer' | 'iwa_ntlm' | 'jwt_bearer' | 'kerberos';

/** [oauth], [oauth.token_validation], [oauth.grant_type.*], [apim.oauth_config]: how tokens are issued. */
export interface OAuthView {
  /** Seconds. */
  readonly appAccessTokenValidity: number;
  readonly userAccessTokenValidity: number;
  readonly refreshTokenValidity: number;
  /** Seconds a token is taken to expire early by (oauth.timestamp_skew). */
  readonly timestampSkew: number;
  /** Regular expressions, from oauth.allowed_scopes and apim.oauth_config.allowed_scopes together. */
  readonly allowedScopes: readonly string[];
  readonly grantEnabled: Readonly<Record<GrantName, boolean>>;
  readonly clientCredentialsRefreshTokens: boolean;
  readonly hashTokens: boolean;
  readonly encryptTokens: boolean;
  /** The access token `iss` claim: oauth.oidc.id_token.issuer, else https://<hostname>:<servlet https port>/oauth2/token. */
  readonly issuer: string;
  /** Header the gateway reads the bearer token from. */
  readonly authHeader: string;
  readonly revokeEndpoint: string;
}

export function oauthView(config: Config): OAuthView {
  const host = config.get('server.hostname');
  const httpsPort = config.get('transport.https.properties.port');
  const base = `https://${host}:${httpsPort}`;
  const scopes = [...(config.get('oauth.allowed_scopes') ?? []), ...config.get('apim.oauth_config.allowed_scopes')];
  return {
    appAccessTokenValidity: config.get('oauth.token_validation.app_access_token_validity'),
    userAccessTokenValidity: config.get('oauth.token_validation.user_access_token_validity'),
    refreshTokenValidity: config.get('oauth.token_validation.refresh_token_validity'),
    timestampSkew: config.get('oauth.timestamp_skew'),
    allowedScopes: [...new Set(scopes)],
    grantEnabled: {
      client_credentials: config.get('oauth.grant_type.client_credentials.enable'),
      password: config.get('oauth.grant_type.password.enable'),
      refresh_token: config.get('oauth.grant_type.refresh_token.enable'),
      authorization_code: config.get('oauth.grant_type.authorization_code.enable'),
      saml_bearer: config.get('oauth.grant_type.saml_bearer.enable'),
      iwa_ntlm: config.get('oauth.grant_type.iwa_ntlm.enable'),
      jwt_bearer: config.get('oauth.grant_type.jwt_bearer.enable'),
      kerberos: config.get('oauth.grant_type.kerberos.enable'),
    },
    clientCredentialsRefreshTokens: config.get('oauth.grant_type.client_credentials.allow_refresh_tokens'),
    hashTokens: config.get('apim.oauth_config.enable_token_hashing'),
    encryptTokens: config.get('apim.oauth_config.enable_token_encryption'),
    issuer: config.get('oauth.oidc.id_token.issuer') ?? `${base}/oauth2/token`,
    authHeader: config.get('apim.oauth_config.auth_header'),
    revokeEndpoint: config.get('apim.oauth_config.revoke_endpoint') ?? `${base}/oauth2/revoke`,
  };
}

/** [oauth.token_cleanup], [session_data.persistence], [oauth.token_generation]: how tokens are kept. */
export interface TokenPersistenceView {
  readonly cleanupEnabled: boolean;
  readonly retainForAudit: boolean;
  /** ms. */
  readonly cleanupInterval: number;
  /** 0: each token is written on its own; above 0: tokens are written in batches by that many writers. */
  readonly persistencePoolSize: number;
  readonly retryCountOnPersistenceFailures: number;
}

export function tokenPersistenceView(config: Config): TokenPersistenceView {
  return {
    cleanupEnabled: config.get('oauth.token_cleanup.enable'),
    retainForAudit: config.get('oauth.token_cleanup.retain_access_tokens_for_auditing'),
    cleanupInterval: config.get('oauth.token_cleanup.interval'),
    persistencePoolSize: Math.max(0, config.get('session_data.persistence.persistence_pool_size')),
    retryCountOnPersistenceFailures: Math.max(0, config.get('oauth.token_generation.retry_count_on_persistence_failures')),
  };
}

/**
 * The super admin as [super_admin] describes it. Without a configured password, the one generated into the
 * home on first start (engine/keymanager/super-admin-password.ts) is used: `passwordSource` says which.
 */
export interface SuperAdminView {
  readonly username: string;
  readonly password: string | undefined;
  readonly create: boolean;
  readonly passwordSource: 'config' | 'generated' | 'none';
  /** Where a generated password is kept (whether or not it exists yet). */
  readonly generatedPasswordFile: string;
}

/** [super_admin] and the [apim.key_manager] credentials that internal callers (the gateway) present. */
export interface KeyManagerAccessView {
  readonly superAdmin: SuperAdminView;
  /** Credentials for the key-validation (introspection) endpoint: apim.key_manager.username/password, else the super admin's. */
  readonly validation: { readonly username: string; readonly password: string | undefined };
  /** Declarative applications: periodic rescan interval, ms. */
  readonly applicationsRescanInterval: number;
}

export const DEFAULT_SUPER_ADMIN = 'admin';

/** The generated password file's content, read once per configuration that found it. */
const generatedPasswords = new WeakMap<Config, string>();

function readGeneratedPassword(config: Config): string | undefined {
  const known = generatedPasswords.get(config);
  if (known !== undefined) return known;
  let text: string;
  try { text = fs.readFileSync(config.home.generatedAdminPasswordFile, 'utf8').trim(); } catch { return undefined; }
  if (text === '') return undefined;
  generatedPasswords.set(config, text);
  return text;
}

export function superAdminView(config: Config): SuperAdminView {
  const username = config.get('super_admin.username') ?? DEFAULT_SUPER_ADMIN;
  const configured = config.get('super_admin.password');
  const generated = configured === undefined || configured === '' ? readGeneratedPassword(config) : undefined;
  return {
    username,
    password: generated ?? configured,
    create: config.get('super_admin.create_admin_account'),
    passwordSource: generated !== undefined ? 'generated' : configured ? 'config' : 'none',
    generatedPasswordFile: config.home.generatedAdminPasswordFile,
  };
}

export function keyManagerAccessView(config: Config): KeyManagerAccessView {
  const superAdmin = superAdminView(config);
  const { username, password } = superAdmin;
  return {
    superAdmin,
    validation: {
      username: config.get('apim.key_manager.username') ?? username,
      password: config.get('apim.key_manager.password') ?? password,
    },
    applicationsRescanInterval: config.get('sluice.keymanager.applications_rescan_interval'),
  };
}

/** One servlet connector ([transport.http.properties] or [transport.https.properties]). */
export interface ServletConnectorView {
  /** Offset applied. */
  readonly port: number;
  readonly maxHeaderSize: number;
  /** ms; 0 disables the body timeout (disableUploadTimeout). */
  readonly uploadTimeout: number;
  readonly keepAliveTimeout: number;
  /** 0: no limit. */
  readonly maxKeepAliveRequests: number;
  readonly serverHeader: string | undefined;
  /** Connections held at once; beyond, closed at accept. */
  readonly maxConnections: number;
}

export interface ServletView {
  readonly bindAddress: string;
  readonly maxBodySize: number;
  readonly headersTimeout: number;
  /** ms the whole request may take to arrive ([sluice.servlet] request_timeout). */
  readonly requestTimeout: number;
  readonly gracefulStopTimeout: number;
  readonly http: ServletConnectorView;
  readonly https: ServletConnectorView;
}

export function servletView(config: Config): ServletView {
  return {
    bindAddress: config.get('sluice.servlet.bind_address'),
    maxBodySize: config.get('sluice.servlet.max_body_size'),
    headersTimeout: config.get('sluice.servlet.headers_timeout'),
    requestTimeout: config.get('sluice.servlet.request_timeout'),
    gracefulStopTimeout: config.get('sluice.servlet.graceful_stop_timeout'),
    http: {
      port: config.get('transport.http.properties.port'),
      maxHeaderSize: config.get('transport.http.properties.maxHttpHeaderSize'),
      uploadTimeout: config.get('transport.http.properties.disableUploadTimeout') ? 0 : config.get('transport.http.properties.connectionUploadTimeout'),
      keepAliveTimeout: config.get('transport.http.properties.keepAliveTimeout'),
      maxKeepAliveRequests: Math.max(0, config.get('transport.http.properties.maxKeepAliveRequests')),
      serverHeader: config.get('transport.http.properties.server'),
      maxConnections: config.get('transport.http.properties.maxConnections'),
    },
    https: {
      port: config.get('transport.https.properties.port'),
      maxHeaderSize: config.get('transport.https.properties.maxHttpHeaderSize'),
      uploadTimeout: config.get('transport.https.properties.disableUploadTimeout') ? 0 : config.get('transport.https.properties.connectionUploadTimeout'),
      keepAliveTimeout: config.get('transport.https.properties.keepAliveTimeout'),
      maxKeepAliveRequests: Math.max(0, config.get('transport.https.properties.maxKeepAliveRequests')),
      serverHeader: config.get('transport.https.properties.server'),
      maxConnections: config.get('transport.https.properties.maxConnections'),
    },
  };
}

/** [sluice.authentication]: back-off after failed authentication, and the bound on password hashing. */
export interface AuthenticationView {
  readonly freeFailures: number;
  /** ms. */
  readonly backoffBase: number;
  readonly backoffMax: number;
  readonly trustedProxies: readonly string[];
  readonly maxConcurrentHashes: number;
  readonly maxQueuedHashes: number;
  readonly maxHashesPerIdentity: number;
}

export function authenticationView(config: Config): AuthenticationView {
  return {
    freeFailures: config.get('sluice.authentication.free_failures'),
    backoffBase: config.get('sluice.authentication.backoff_base'),
    backoffMax: Math.max(config.get('sluice.authentication.backoff_max'), config.get('sluice.authentication.backoff_base')),
    trustedProxies: config.get('sluice.authentication.trusted_proxies'),
    maxConcurrentHashes: config.get('sluice.authentication.max_concurrent_hashes'),
    maxQueuedHashes: config.get('sluice.authentication.max_queued_hashes'),
    maxHashesPerIdentity: config.get('sluice.authentication.max_hashes_per_identity'),
  };
}

/** [apim.token.revocation]: how revocations leave this node. */
export interface RevocationView {
  readonly realtimeNotifier: boolean;
  readonly realtimeTtl: number;
  readonly persistentNotifier: boolean;
}

export function revocationView(config: Config): RevocationView {
  return {
    realtimeNotifier: config.get('apim.token.revocation.enable_realtime_notifier') ?? true,
    realtimeTtl: config.get('apim.token.revocation.realtime_notifier.ttl'),
    persistentNotifier: config.get('apim.token.revocation.enable_persistent_notifier') ?? false,
  };
}
