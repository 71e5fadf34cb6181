import { key, itemKey } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): gateways and the control plane.
 * Gateway environments and the artifacts they sync, the notifications gateways send, the event hub, the
 * message broker connection and the artifact generator.
 */

/** [apim] gateway_type, [[apim.gateway.environment]] and [apim.sync_runtime_artifacts]: where APIs are deployed. */
export const GATEWAY_ENVIRONMENTS = [
  // [apim]
  key('apim', 'gateway_type', 'string', { required: true, allowed: ['Regular', 'APK', 'AWS'], notes: 'Offered when creating gateway environments in the admin portal.' }),

  // [[apim.gateway.environment]]
  itemKey('apim.gateway.environment', 'name', 'string', { default: 'Default', required: true }),
  itemKey('apim.gateway.environment', 'type', 'string', { default: 'hybrid', required: true, allowed: ['production', 'sandbox', 'hybrid'] }),
  itemKey('apim.gateway.environment', 'display_in_api_console', 'boolean', { default: true, required: true, notes: 'catalog type string, takes true/false; show under Try it in the devportal.' }),
  itemKey('apim.gateway.environment', 'description', 'string', { required: true, notes: 'default: text' }),
  itemKey('apim.gateway.environment', 'show_as_token_endpoint_url', 'boolean', { default: true, required: true, notes: 'catalog type string, takes true/false; used to build sample requests.' }),
  itemKey('apim.gateway.environment', 'service_url', 'string', { required: true, notes: 'default: {base_url}/services/; publishing URL.' }),
  // Catalog: required, defaulting to the super admin's credentials. Sluice does not read them (no developer portal
  // lists environments), so a home need not write the super admin's password here (docs/decisions.md).
  itemKey('apim.gateway.environment', 'username', 'string', { notes: 'catalog: required; default: super admin username' }),
  itemKey('apim.gateway.environment', 'password', 'string', { secret: true, notes: 'catalog: required; default: super admin password' }),
  itemKey('apim.gateway.environment', 'ws_endpoint', 'string', { required: true, notes: 'ws://<host>:<port>' }),
  itemKey('apim.gateway.environment', 'http_endpoint', 'string', { notes: 'http://<host>:<port>' }),
  itemKey('apim.gateway.environment', 'https_endpoint', 'string', { required: true, notes: 'https://<host>:<port>' }),

  // [apim.gateway.environment.virtual_host]
  itemKey('apim.gateway.environment', 'virtual_host.http_endpoint', 'string', { notes: 'default: http://<host of https endpoint>:80; form http://<host>:<port>/<optional context>' }),
  itemKey('apim.gateway.environment', 'virtual_host.https_endpoint', 'string', { required: true, notes: 'form https://<host>:<port>/<optional context>' }),
  itemKey('apim.gateway.environment', 'virtual_host.ws_endpoint', 'string', { notes: 'default: ws://<host of https endpoint>:9099' }),
  itemKey('apim.gateway.environment', 'virtual_host.wss_endpoint', 'string', { notes: 'default: wss://<host of https endpoint>:8099' }),

  // [apim.sync_runtime_artifacts]
  key('apim.sync_runtime_artifacts', 'enable', 'boolean', { default: false }),
  key('apim.sync_runtime_artifacts', 'tenants', 'string[]', { default: ['*'], notes: 'comma list of tenants or *.' }),

  // [apim.sync_runtime_artifacts.gateway]
  key('apim.sync_runtime_artifacts.gateway', 'gateway_labels', 'string[]', { default: ['Default'], required: true }),
  key('apim.sync_runtime_artifacts.gateway', 'deployment_retry_duration', 'duration', { default: 15000, notes: 'catalog type int, ms.' }),
  key('apim.sync_runtime_artifacts.gateway', 'max_retry_count', 'integer', { default: 5 }),
  key('apim.sync_runtime_artifacts.gateway', 'retry_progression_factor', 'float', { default: 2.0 }),
] as const;

/** [apim.gateway_notification.*]: heartbeats, deployment acknowledgements, registration and clean-up of gateways. */
export const GATEWAY_NOTIFICATION = [
  // [apim.gateway_notification]
  key('apim.gateway_notification', 'enabled', 'boolean', { default: true }),
  key('apim.gateway_notification', 'gateway_id', 'string', { notes: 'default: random UUID' }),
  // [apim.gateway_notification.heartbeat]
  key('apim.gateway_notification.heartbeat', 'notify_interval', 'duration', { default: 60000, notes: '1m.' }),
  // [apim.gateway_notification.deployment_ack]
  key('apim.gateway_notification.deployment_ack', 'batch_size', 'integer', { default: 100 }),
  key('apim.gateway_notification.deployment_ack', 'batch_interval', 'duration', { default: 2000, notes: '2s.' }),
  key('apim.gateway_notification.deployment_ack', 'max_retry_count', 'integer', { default: 5 }),
  key('apim.gateway_notification.deployment_ack', 'retry_duration', 'duration', { default: 10000, notes: '10s.' }),
  key('apim.gateway_notification.deployment_ack', 'retry_progression_factor', 'integer', { default: 2 }),
  key('apim.gateway_notification.deployment_ack', 'batch_processor_min_thread', 'integer', { default: 2 }),
  key('apim.gateway_notification.deployment_ack', 'batch_processor_max_thread', 'integer', { default: 8 }),
  key('apim.gateway_notification.deployment_ack', 'batch_processor_keep_alive', 'duration', { default: 60000, notes: '1m.' }),
  key('apim.gateway_notification.deployment_ack', 'batch_processor_queue_size', 'integer', { default: 50 }),
  // [apim.gateway_notification.registration]
  key('apim.gateway_notification.registration', 'max_retry_count', 'integer', { default: 5 }),
  key('apim.gateway_notification.registration', 'retry_duration', 'duration', { default: 10000, notes: '10s.' }),
  key('apim.gateway_notification.registration', 'retry_progression_factor', 'integer', { default: 2 }),
  // [apim.gateway_notification.cleanup]
  key('apim.gateway_notification.cleanup', 'expiry_time', 'duration', { default: 120000, notes: '2m; gateway expired when no heartbeat.' }),
  key('apim.gateway_notification.cleanup', 'data_retention_period', 'duration', { default: 2592000000, notes: '30d.' }),
] as const;

/** [apim.event_hub] and [[apim.event_hub.publish.url_group]]s: the control plane's events. */
export const EVENT_HUB = [
  // [apim.event_hub]
  key('apim.event_hub', 'enable', 'boolean', { default: true }),
  key('apim.event_hub', 'username', 'string', { notes: 'default: super tenant admin' }),
  key('apim.event_hub', 'password', 'string', { secret: true, notes: 'default: super tenant admin' }),
  key('apim.event_hub', 'service_url', 'string', { notes: 'Internal URL used to pull artifacts from the control plane.' }),
  key('apim.event_hub', 'event_listening_endpoints', 'string[]', { notes: 'Message connection to the control plane.' }),
  key('apim.event_hub', 'event_duplicate_url', 'string[]', { notes: 'Extra URLs are failover.' }),
  key('apim.event_hub', 'event_waiting_time', 'duration', { notes: 'catalog type integer ms; wait before processing received events.' }),

  // [[apim.event_hub.publish.url_group]]
  itemKey('apim.event_hub.publish.url_group', 'urls', 'string[]', { required: true, notes: 'Extra entries are failover.' }),
  itemKey('apim.event_hub.publish.url_group', 'auth_urls', 'string[]', { required: true, notes: 'Extra entries are failover.' }),
] as const;

/** [qpid.heartbeat]: the message broker connection's heartbeat. */
export const QPID = [
  // [qpid.heartbeat]
  key('qpid.heartbeat', 'delay', 'integer', { default: 0, notes: 'seconds between pings; sample 1.' }),
  key('qpid.heartbeat', 'timeoutFactor', 'float', { default: 2.0, notes: 'sample uses key timeout_factor = 3.0.' }),
] as const;

/** [apim.synapse_artifact_generator.thread_pool]. */
export const ARTIFACT_GENERATOR = [
  // [apim.synapse_artifact_generator.thread_pool]
  key('apim.synapse_artifact_generator.thread_pool', 'core_pool_size', 'integer', { default: 4, notes: 'Applies from 4.0 update level 368.' }),
  key('apim.synapse_artifact_generator.thread_pool', 'max_pool_size', 'integer', { default: 4, notes: 'Equal to core makes a fixed pool.' }),
  key('apim.synapse_artifact_generator.thread_pool', 'keep_alive_time_ms', 'duration', { default: 60000, notes: 'catalog type integer ms.' }),
  key('apim.synapse_artifact_generator.thread_pool', 'queue_capacity', 'integer', { default: 50, notes: 'When full and at max, the caller runs the task (back-pressure).' }),
] as const;
