/**
 * The runtime resources both doors write (declarative files under <home>/repository/deployment/server and
 * the admin REST API) and every role reads. Plain data: posted to io threads and stored as JSON.
 * The file formats are documented in docs/declarative-files.md.
 */

export type ApiType = 'HTTP' | 'GRAPHQL' | 'WS';
export type LifecycleState = 'CREATED' | 'PUBLISHED' | 'BLOCKED' | 'DEPRECATED' | 'RETIRED' | 'PROTOTYPED';
export type AuthType = 'None' | 'Application' | 'Application User' | 'Application & Application User';
export type KeyType = 'PRODUCTION' | 'SANDBOX';
export type TokenType = 'JWT' | 'OPAQUE';
export type ApiSecurityScheme = 'oauth2' | 'api_key' | 'basic_auth';
export type SubscriptionState = 'UNBLOCKED' | 'BLOCKED' | 'PROD_ONLY_BLOCKED' | 'ON_HOLD' | 'REJECTED';

export interface ResourceDefinition {
  readonly verb: string;
  /** `/menu`, `/menu/{id}`, `/*`, `/orders/{id}/items`. */
  readonly uriTemplate: string;
  readonly authType: AuthType;
  readonly throttlingPolicy: string;
  readonly scopes: readonly string[];
}

export interface CorsOverride {
  readonly enabled: boolean;
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
  readonly allowCredentials: boolean;
}

export interface ApiDefinition {
  /** `name:version`, unique. */
  readonly id: string;
  readonly name: string;
  /** Starts with `/`, no trailing slash: `/pizzashack`. */
  readonly context: string;
  readonly version: string;
  readonly type: ApiType;
  readonly lifecycleState: LifecycleState;
  /** API-level (advanced) throttling policy. */
  readonly throttlingPolicy: string;
  readonly endpoints: { readonly production?: string; readonly sandbox?: string };
  readonly resources: readonly ResourceDefinition[];
  /** Names of deployed sequences run on the request / response / on a fault of this API. */
  readonly inSequence?: string;
  readonly outSequence?: string;
  readonly faultSequence?: string;
  readonly cors?: CorsOverride;
  /** Hard limit on calls per second to the backend across all callers (900801 when reached). */
  readonly backendMaxTps?: number;
  /** Cap of a request body this API reads whole, bytes; default [passthru_http] max_buffered_request_body_size. */
  readonly maxBufferedRequestBodySize?: number;
  /** Cap of a response its out sequence holds whole, bytes; default [passthru_http] max_buffered_response_body_size. */
  readonly maxBufferedResponseBodySize?: number;
  /** PEM certificates allowed for mutual TLS ([apimgt.mutual_ssl]). */
  readonly clientCertificates?: readonly string[];
  /** How callers may authenticate (the reference system's API `security` list); absent: oauth2 only. */
  readonly security?: readonly ApiSecurityScheme[];
  /** Where it came from: a file path, or `store` for the admin API. */
  readonly source: string;
}

export interface ApplicationKey {
  readonly keyType: KeyType;
  readonly clientId: string;
  /** scrypt hash of the secret, `scrypt$N$r$p$salt$hash`; a clear secret never leaves the loader. */
  readonly clientSecretHash: string;
  readonly grantTypes: readonly string[];
  readonly scopes: readonly string[];
  readonly callbackUrl?: string;
  /** The [[apim.jwt.issuer]] (by name) whose tokens this key stands for; no secret of its own then. */
  readonly keyManager?: string;
}

export interface SubscriptionDefinition {
  /** `name:version` of the API. */
  readonly api: string;
  readonly throttlingPolicy: string;
  readonly state: SubscriptionState;
}

export interface ApplicationDefinition {
  /** Unique name; the application id in tokens and events. */
  readonly name: string;
  readonly owner: string;
  readonly throttlingPolicy: string;
  readonly tokenType: TokenType;
  readonly keys: readonly ApplicationKey[];
  readonly subscriptions: readonly SubscriptionDefinition[];
  readonly source: string;
}

export type TimeUnit = 'sec' | 'min' | 'hour' | 'day';

export interface Quota {
  /** Requests per window; or bandwidth when `bandwidthBytes` is set. */
  readonly requests?: number;
  /** Bytes (request and response bodies) per window. */
  readonly bandwidthBytes?: number;
  readonly unitTime: number;
  readonly timeUnit: TimeUnit;
}

export interface ThrottleCondition {
  readonly type: 'header' | 'query' | 'jwt_claim' | 'ip' | 'ip_range';
  /** Header, query parameter or claim name (not for ip / ip_range). */
  readonly name?: string;
  /** A regular expression matched against the whole value (header, query, claim); an address or range (ip, ip_range). */
  readonly value: string;
  readonly invert?: boolean;
}

/** A conditional group of an advanced policy: when all its conditions hold, its quota applies instead. */
export interface ConditionGroup {
  readonly description?: string;
  readonly conditions: readonly ThrottleCondition[];
  readonly quota: Quota;
}

export interface ThrottlePolicy {
  readonly level: 'subscription' | 'application' | 'advanced' | 'custom';
  readonly name: string;
  readonly quota: Quota;
  /** Subscription policies: false lets calls over the quota pass (counted and logged only). Others: true. */
  readonly stopOnQuotaReach: boolean;
  readonly burst?: { readonly requests: number; readonly timeUnit: 'sec' | 'min' };
  /** Advanced policies: conditional groups, each with its own quota. */
  readonly conditionGroups?: readonly ConditionGroup[];
  /** Custom policies: what the counter is keyed on (`$userId:$apiContext`...). */
  readonly keyTemplate?: string;
  /** No quota at all (the Unlimited tier); `quota` is then ignored. */
  readonly unlimited?: boolean;
  readonly description?: string;
  /** Line of the policy in its file (for messages). */
  readonly line?: number;
  readonly source: string;
}

export interface BlockCondition {
  readonly type: 'USER' | 'IP' | 'IP_RANGE' | 'APPLICATION' | 'API';
  readonly value: string;
  readonly enabled: boolean;
  /** Block everything that does NOT match (IP, IP_RANGE, USER, APPLICATION, API). */
  readonly invert?: boolean;
  readonly line?: number;
  readonly source?: string;
}
