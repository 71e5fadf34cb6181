import { key, itemKey } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): what a node tells about itself.
 * Analytics, tracing, health checks and the access log.
 */

/** [apim.analytics] and its properties and [[apim.analytics.url_group]]s. */
export const ANALYTICS = [
  // [apim.analytics]
  key('apim.analytics', 'enable', 'boolean', { default: false, required: true }),
  key('apim.analytics', 'type', 'string', { required: true, notes: 'log, or a named third-party provider; for 4.6.0 and later.' }),
  // [apim.analytics.properties]
  key('apim.analytics.properties', '<provider>Key', 'string', { secret: true, notes: 'Ingestion key; required when the provider type is used.' }),
  key('apim.analytics.properties', '<provider>_base_url', 'string', { notes: 'Provider ingestion URL.' }),
  key('apim.analytics.properties', 'send_headers', 'boolean', { default: false }),
  key('apim.analytics.properties', 'build_response_message', 'boolean', { default: false, notes: 'Computes response size for the analytics event.' }),

  // [[apim.analytics.url_group]]
  itemKey('apim.analytics.url_group', 'analytics_url', 'string[]', { required: true, notes: 'One block per analytics node group.' }),
  itemKey('apim.analytics.url_group', 'analytics_auth_url', 'string[]', { required: true }),
  itemKey('apim.analytics.url_group', 'type', 'string', { allowed: ['loadbalance', 'failover'] }),
] as const;

/** [apim.open_tracer]: Zipkin and log tracers. */
export const OPEN_TRACER = [
  // [apim.open_tracer]
  key('apim.open_tracer', 'remote_tracer.enable', 'boolean', { default: false }),
  key('apim.open_tracer', 'remote_tracer.name', 'string', { notes: 'default: a tracer name' }),
  key('apim.open_tracer', 'remote_tracer.properties.hostname', 'string', { default: 'localhost' }),
  key('apim.open_tracer', 'remote_tracer.properties.port', 'integer', { default: 9411, notes: 'Remote collector port; not shifted by server.offset.' }),
  key('apim.open_tracer', 'log_tracer.enable', 'boolean', { default: false }),
] as const;

/** [carbon_health_check] and [[health_checker]]s. */
export const HEALTH_CHECKS = [
  // [carbon_health_check]
  key('carbon_health_check', 'enable', 'boolean', { default: false }),
  // [carbon_health_check.health_checker.super_tenant_health_checker]
  key('carbon_health_check.health_checker.super_tenant_health_checker', 'enable', 'boolean', { default: true }),
  key('carbon_health_check.health_checker.super_tenant_health_checker', 'order', 'integer', { default: 98 }),
  key('carbon_health_check.health_checker.super_tenant_health_checker', 'properties.monitored.user.stores', 'string[]', { notes: 'User store domains; all secondary stores when absent.' }),
  // [carbon_health_check.health_checker.data_source_health_checker]
  key('carbon_health_check.health_checker.data_source_health_checker', 'enable', 'boolean', { default: true }),
  key('carbon_health_check.health_checker.data_source_health_checker', 'order', 'integer', { default: 97, notes: 'sample value.' }),
  key('carbon_health_check.health_checker.data_source_health_checker', 'properties.pool_usage_limit_percentage', 'integer', { default: 80 }),
  key('carbon_health_check.health_checker.data_source_health_checker', 'properties.monitored.datasources', 'string[]', { notes: 'All data sources when absent.' }),

  // [[health_checker]]
  itemKey('health_checker', 'name', 'string', { notes: 'Custom health checker.' }),
  itemKey('health_checker', 'order', 'integer'),
  itemKey('health_checker', 'properties', 'table', { notes: 'Key-value pairs for the custom checker.' }),
] as const;

/** [http_access_log]. */
export const ACCESS_LOG = [
  // [http_access_log]
  key('http_access_log', 'enabled', 'boolean', { default: true, notes: 'sample value; catalog gives no type or default.' }),
  key('http_access_log', 'useLogger', 'boolean', { default: false, notes: 'Writes access records to the main log.' }),
] as const;
