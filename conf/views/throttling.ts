import type { Config } from '../config.js';

/**
 * [apim.throttling]: what the gateway's throttle phase and the traffic manager read (docs/throttling.md).
 * The seed's `enable_*` flags, the decision topic, and Sluice's own keys (trusted proxies, counter table
 * size, rate-limit headers).
 */
export interface ThrottlingView {
  /** enable_blacklist_condition: block conditions are applied (900805). */
  readonly blockConditions: boolean;
  /** enable_header_based_throttling: conditional groups with header conditions take part. */
  readonly headerConditions: boolean;
  /** enable_query_param_based_throttling. */
  readonly queryConditions: boolean;
  /** enable_jwt_claim_based_throttling. */
  readonly jwtClaimConditions: boolean;
  /** enable_unlimited_tier: "Unlimited" is a known subscription and application tier. */
  readonly unlimitedTier: boolean;
  /** enable_data_publishing: throttle decisions are published (event bus, Redis channel). */
  readonly dataPublishing: boolean;
  /** jms.destination: the topic (Redis channel) of throttle decisions. */
  readonly decisionTopic: string;
  /** Addresses or ranges whose X-Forwarded-For is believed. */
  readonly trustedProxies: readonly string[];
  readonly counterTableSize: number;
  readonly rateLimitHeaders: boolean;
  /** <home>/repository/deployment/server/policies. */
  readonly policiesDir: string;
  /** The traffic-manager role's status endpoint ([apim.throttling.event_management], offset applied). */
  readonly statusHost: string;
  readonly statusPort: number;
}

export function throttlingView(config: Config): ThrottlingView {
  return {
    blockConditions: config.get('apim.throttling.enable_blacklist_condition'),
    headerConditions: config.get('apim.throttling.enable_header_based_throttling'),
    queryConditions: config.get('apim.throttling.enable_query_param_based_throttling'),
    jwtClaimConditions: config.get('apim.throttling.enable_jwt_claim_based_throttling'),
    unlimitedTier: config.get('apim.throttling.enable_unlimited_tier'),
    dataPublishing: config.get('apim.throttling.enable_data_publishing'),
    decisionTopic: config.get('apim.throttling.jms.destination'),
    trustedProxies: config.get('apim.throttling.trusted_proxies'),
    counterTableSize: config.get('apim.throttling.counter_table_size'),
    rateLimitHeaders: config.get('apim.throttling.rate_limit_headers'),
    policiesDir: config.home.policiesDir,
    statusHost: config.get('apim.throttling.event_management.hostName'),
    statusPort: config.get('apim.throttling.event_management.port'),
  };
}
