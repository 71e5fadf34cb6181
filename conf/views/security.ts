import type { Config } from '../config.js';
import { keyManagerAccessView, oauthView, servletView } from './keymanager.js';

/** CORS settings ([apim.cors]); an API may override them. */
export interface CorsView {
  readonly enabled: boolean;
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
  readonly allowCredentials: boolean;
}

export function corsView(config: Config): CorsView {
  return {
    enabled: config.get('apim.cors.enable'),
    allowOrigins: config.get('apim.cors.allow_origins'),
    allowMethods: config.get('apim.cors.allow_methods'),
    allowHeaders: config.get('apim.cors.allow_headers'),
    allowCredentials: config.get('apim.cors.allow_credentials'),
  };
}

/** [apim.jwt]: the JWT the gateway signs for backends. */
export interface BackendJwtView {
  readonly enabled: boolean;
  readonly header: string;
  readonly encoding: 'base64' | 'base64url';
  /** false: `alg` none, no signature (signing_algorithm = NONE). */
  readonly sign: boolean;
  readonly useKid: boolean;
  readonly sha256Thumbprint: boolean;
  readonly x5tWithoutPadding: boolean;
  readonly excludedClaims: readonly string[];
  readonly enableUserClaims: boolean;
  readonly cacheEnabled: boolean;
  /** ms; undefined: as long as the backend JWT is valid. */
  readonly cacheExpiryMs: number | undefined;
}

export function backendJwtView(config: Config): BackendJwtView {
  return {
    enabled: config.get('apim.jwt.enable'),
    header: config.get('apim.jwt.header'),
    encoding: config.get('apim.jwt.encoding') === 'base64url' ? 'base64url' : 'base64',
    sign: config.get('apim.jwt.signing_algorithm') !== 'NONE',
    useKid: config.get('apim.jwt.use_kid_property'),
    sha256Thumbprint: config.get('apim.jwt.use_sha256_hash'),
    x5tWithoutPadding: config.get('apim.jwt.encode_x5t_without_padding'),
    excludedClaims: (config.get('apim.jwt.gateway_generator.excluded_claims') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    enableUserClaims: config.get('apim.jwt.enable_user_claims'),
    cacheEnabled: config.get('apim.cache.jwt_claim.enable'),
    cacheExpiryMs: config.get('apim.cache.jwt_claim.expiry_time'),
  };
}

/** [apimgt.mutual_ssl]: client certificates presented by a load balancer that ends mutual TLS. */
export interface MutualSslView {
  readonly enabled: boolean;
  readonly header: string;
  readonly encoded: boolean;
}

export function mutualSslView(config: Config): MutualSslView {
  return {
    enabled: config.get('apimgt.mutual_ssl.enable_client_validation'),
    header: (config.get('apimgt.mutual_ssl.certificate_header') ?? 'X-SSL-CERT').toLowerCase(),
    encoded: config.get('apimgt.mutual_ssl.client_certificate_encode'),
  };
}

/** [apim.transport_headers]. */
export interface TransportHeadersView {
  readonly enabled: boolean;
  /** Remove request headers from failure responses (they never are echoed in Sluice anyway). */
  readonly removeRequestHeaders: boolean;
  readonly preserveRequestHeaders: readonly string[];
  /** Removed from responses to the client. */
  readonly excludeRequestHeaders: readonly string[];
  /** Removed from requests to the backend. */
  readonly excludeResponseHeaders: readonly string[];
}

export function transportHeadersView(config: Config): TransportHeadersView {
  const enabled = config.get('apim.transport_headers.enabled');
  return {
    enabled,
    removeRequestHeaders: config.get('apim.transport_headers.removeRequestHeaders'),
    preserveRequestHeaders: config.get('apim.transport_headers.preserveRequestHeaders') ?? [],
    excludeRequestHeaders: enabled ? config.get('apim.transport_headers.excludeRequestHeaders') ?? [] : [],
    excludeResponseHeaders: enabled ? config.get('apim.transport_headers.excludeResponseHeaders') ?? [] : [],
  };
}

/** [sluice.graphql]: what the gateway lets a GraphQL query be before it parses it. */
export interface GraphqlView {
  readonly maxTokens: number;
  readonly maxDepth: number;
}

export function graphqlView(config: Config): GraphqlView {
  return { maxTokens: config.get('sluice.graphql.max_tokens'), maxDepth: config.get('sluice.graphql.max_depth') };
}

/** How the gateway checks access tokens. */
export interface TokenValidationView {
  /** apim.oauth_config.auth_header, lower-case. */
  readonly authHeader: string;
  readonly outboundAuthHeader: boolean;
  readonly issuer: string;
  /** oauth.timestamp_skew, seconds. */
  readonly clockSkewSec: number;
  readonly cacheEnabled: boolean;
  readonly cacheExpiryMs: number;
  readonly cacheMaxEntries: number;
  /** The key manager's JWKS; undefined: take the keys from the key manager in this process. */
  readonly jwksUrl: string | undefined;
  readonly jwksRefreshMs: number;
  readonly introspectionUrl: string;
  readonly introspectionUser: string;
  readonly introspectionPassword: string | undefined;
  /** [apim.http_client]: connections for key-validation calls. */
  readonly maxTotal: number;
  readonly maxPerRoute: number;
  /** [sluice.websocket] require_subscription: a WebSocket handshake needs a subscription. */
  readonly wsRequireSubscription: boolean;
}

function originOf(url: string | undefined, fallback: string): string {
  if (!url) return fallback;
  try { return new URL(url).origin; } catch { return fallback; }
}

export function tokenValidationView(config: Config): TokenValidationView {
  const servlet = servletView(config);
  const local = `https://127.0.0.1:${servlet.https.port}`;
  const kmOrigin = originOf(config.get('apim.key_manager.service_url'), local);
  const access = keyManagerAccessView(config);
  return {
    authHeader: config.get('apim.oauth_config.auth_header').toLowerCase(),
    outboundAuthHeader: config.get('apim.oauth_config.enable_outbound_auth_header'),
    issuer: oauthView(config).issuer,
    clockSkewSec: config.get('oauth.timestamp_skew'),
    cacheEnabled: config.get('apim.cache.gateway_token.enable'),
    cacheExpiryMs: config.get('apim.cache.gateway_token.expiry_time'),
    cacheMaxEntries: config.get('apim.cache.gateway_token.max_entries'),
    jwksUrl: config.get('apim.key_manager.jwks_url') ?? `${kmOrigin}/oauth2/jwks`,
    jwksRefreshMs: config.get('apim.key_manager.jwks_refresh_interval'),
    introspectionUrl: config.get('apim.key_manager.introspection_url') ?? `${kmOrigin}/oauth2/introspect`,
    introspectionUser: access.validation.username,
    introspectionPassword: access.validation.password,
    maxTotal: config.get('apim.http_client.max_total'),
    maxPerRoute: config.get('apim.http_client.default_max_per_route'),
    wsRequireSubscription: config.get('sluice.websocket.require_subscription'),
  };
}
