import type { Config } from '../config.js';
import { superAdminView } from './keymanager.js';

/**
 * How nodes find each other: a gateway-worker pulls its artifacts from the control plane ([apim.event_hub]
 * service_url, with the retry rules of [apim.sync_runtime_artifacts.gateway]), follows its events
 * (event_listening_endpoints, or Redis pub/sub) and reports itself ([apim.gateway_notification]).
 * docs/operations.md describes the set-up.
 */
export interface EventHubView {
  readonly enabled: boolean;
  /** Origin (and path) of the control plane's servlet HTTPS port; undefined: no control plane (standalone). */
  readonly serviceUrl: string | undefined;
  /** Credentials a gateway presents to the control plane's internal endpoints (the super admin by default). */
  readonly username: string;
  readonly password: string | undefined;
  /** http(s) URLs long-polled for events; others (tcp://, amqp://) are ignored in favour of serviceUrl. */
  readonly listeningEndpoints: readonly string[];
  /** Extra control plane URLs tried in turn when the first fails. */
  readonly duplicateUrls: readonly string[];
  /** ms to wait before processing received events. */
  readonly waitingTime: number;
  readonly longPollTimeout: number;
  readonly pollInterval: number;
  readonly retention: number;
}

export function eventHubView(config: Config): EventHubView {
  const admin = superAdminView(config);
  return {
    enabled: config.get('apim.event_hub.enable'),
    serviceUrl: config.get('apim.event_hub.service_url'),
    username: config.get('apim.event_hub.username') ?? admin.username,
    password: config.get('apim.event_hub.password') ?? admin.password,
    listeningEndpoints: config.get('apim.event_hub.event_listening_endpoints') ?? [],
    duplicateUrls: config.get('apim.event_hub.event_duplicate_url') ?? [],
    waitingTime: config.get('apim.event_hub.event_waiting_time') ?? 0,
    longPollTimeout: config.get('sluice.event_hub.long_poll_timeout'),
    pollInterval: config.get('sluice.event_hub.poll_interval'),
    retention: config.get('sluice.event_hub.retention'),
  };
}

/** [apim.sync_runtime_artifacts.gateway]: how a gateway-worker retries its first pull of artifacts. */
export interface ArtifactSyncView {
  readonly labels: readonly string[];
  /** ms before the first retry; each next wait is multiplied by `progressionFactor`. */
  readonly retryDuration: number;
  readonly maxRetryCount: number;
  readonly progressionFactor: number;
}

export function artifactSyncView(config: Config): ArtifactSyncView {
  return {
    labels: config.get('apim.sync_runtime_artifacts.gateway.gateway_labels'),
    retryDuration: config.get('apim.sync_runtime_artifacts.gateway.deployment_retry_duration'),
    maxRetryCount: Math.max(0, config.get('apim.sync_runtime_artifacts.gateway.max_retry_count')),
    progressionFactor: Math.max(1, config.get('apim.sync_runtime_artifacts.gateway.retry_progression_factor')),
  };
}

export interface RetryRule {
  readonly maxRetryCount: number;
  readonly retryDuration: number;
  readonly progressionFactor: number;
}

/** [apim.gateway_notification]: registration, heartbeat, deployment acknowledgments, expiry. */
export interface GatewayNotificationView {
  readonly enabled: boolean;
  /** Configured id; undefined: a UUID generated once and kept in <home>/repository/database/gateway-id. */
  readonly gatewayId: string | undefined;
  readonly heartbeatInterval: number;
  readonly registration: RetryRule;
  readonly ack: RetryRule & { readonly batchSize: number; readonly batchInterval: number };
  /** A gateway without heartbeat for this long is EXPIRED. */
  readonly expiryTime: number;
  /** Expired gateways are forgotten after this long. */
  readonly retention: number;
}

export function gatewayNotificationView(config: Config): GatewayNotificationView {
  const n = 'apim.gateway_notification';
  return {
    enabled: config.get(`${n}.enabled`),
    gatewayId: config.get(`${n}.gateway_id`),
    heartbeatInterval: Math.max(100, config.get(`${n}.heartbeat.notify_interval`)),
    registration: {
      maxRetryCount: Math.max(0, config.get(`${n}.registration.max_retry_count`)),
      retryDuration: config.get(`${n}.registration.retry_duration`),
      progressionFactor: Math.max(1, config.get(`${n}.registration.retry_progression_factor`)),
    },
    ack: {
      batchSize: Math.max(1, config.get(`${n}.deployment_ack.batch_size`)),
      batchInterval: config.get(`${n}.deployment_ack.batch_interval`),
      maxRetryCount: Math.max(0, config.get(`${n}.deployment_ack.max_retry_count`)),
      retryDuration: config.get(`${n}.deployment_ack.retry_duration`),
      progressionFactor: Math.max(1, config.get(`${n}.deployment_ack.retry_progression_factor`)),
    },
    expiryTime: config.get(`${n}.cleanup.expiry_time`),
    retention: config.get(`${n}.cleanup.data_retention_period`),
  };
}

/** [sluice.admin_api]: the networks the admin REST API answers. */
export interface AdminApiView {
  /** Addresses, CIDRs or ranges (engine/throttling/ip.ts reads them). */
  readonly allowedNetworks: readonly string[];
}

export function adminApiView(config: Config): AdminApiView {
  return { allowedNetworks: config.get('sluice.admin_api.allowed_networks') };
}

/** [[apim.gateway.environment]]: the environments the admin API lists gateways under. */
export interface GatewayEnvironmentView {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly httpEndpoint: string | undefined;
  readonly httpsEndpoint: string | undefined;
}

export function gatewayEnvironments(config: Config): GatewayEnvironmentView[] {
  const list = config.items('apim.gateway.environment').map((i) => ({
    name: String(i['name'] ?? 'Default'),
    type: String(i['type'] ?? 'hybrid'),
    description: String(i['description'] ?? ''),
    httpEndpoint: typeof i['http_endpoint'] === 'string' ? i['http_endpoint'] : undefined,
    httpsEndpoint: typeof i['https_endpoint'] === 'string' ? i['https_endpoint'] : undefined,
  }));
  return list.length ? list : [{ name: 'Default', type: 'hybrid', description: '', httpEndpoint: undefined, httpsEndpoint: undefined }];
}

/** [apim.redis_config] as the event hub uses it (pub/sub of control plane events). */
export interface EventRedisView {
  readonly enabled: boolean;
  /** redis://... built from url, or host/port/username/password. */
  readonly url: string;
  readonly channel: string;
}

export function eventRedisView(config: Config): EventRedisView {
  const url = config.get('apim.redis_config.url');
  const user = config.get('apim.redis_config.username');
  const password = config.get('apim.redis_config.password');
  const auth = password !== undefined ? `${encodeURIComponent(user ?? '')}:${encodeURIComponent(password)}@` : '';
  return {
    enabled: config.get('apim.redis_config.enable'),
    url: url ?? `redis://${auth}${config.get('apim.redis_config.host')}:${config.get('apim.redis_config.port')}`,
    channel: `${config.get('apim.redis_config.key_prefix')}events`,
  };
}
