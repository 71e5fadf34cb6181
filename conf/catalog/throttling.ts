import { key, itemKey } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): throttling, and the binary
 * transport that carries its events.
 */

/** [apim.throttling] and its sub-sections and [[apim.throttling.url_group]]s. */
export const THROTTLING = [
  // [apim.throttling]
  key('apim.throttling', 'enable_data_publishing', 'boolean', { default: true }),
  key('apim.throttling', 'enable_policy_deploy', 'boolean', { default: true }),
  key('apim.throttling', 'enable_blacklist_condition', 'boolean', { default: true }),
  key('apim.throttling', 'enable_persistence', 'boolean', { default: false }),
  key('apim.throttling', 'enable_header_based_throttling', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.throttling', 'enable_jwt_claim_based_throttling', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.throttling', 'enable_query_param_based_throttling', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.throttling', 'enable_unlimited_tier', 'boolean', { default: true, notes: 'catalog type string, takes true/false' }),
  key('apim.throttling', 'enable_decision_connection', 'boolean', { default: true }),
  key('apim.throttling', 'event_type', 'string', { default: 'Binary', allowed: ['Binary', 'Thrift'] }),
  key('apim.throttling', 'receiver_url', 'string', { notes: 'default: tcp://<local ip>:<receiver port>' }),
  key('apim.throttling', 'throttle_decision_endpoints', 'string[]', { required: true, notes: 'items like tcp://<host>:5672' }),
  key('apim.throttling', 'skip_redeploying_policies', 'string[]'),
  key('apim.throttling', 'jms.ssl', 'boolean', { default: false }),
  key('apim.throttling', 'jms.conn_jndi_name', 'string', { default: 'TopicConnectionFactory' }),
  key('apim.throttling', 'jms.destination_type', 'string', { default: 'topic', allowed: ['topic', 'queue'] }),
  key('apim.throttling', 'jms.java_naming_factory_initial', 'string', { notes: 'default: built-in factory class' }),
  key('apim.throttling', 'jms.topic_connection_factory', 'string'),
  key('apim.throttling', 'jms.username', 'string', { notes: 'default: super admin credentials' }),
  key('apim.throttling', 'jms.password', 'string', { secret: true, notes: 'default: super admin credentials' }),
  key('apim.throttling', 'jms.destination', 'string', { default: 'throttleData' }),
  key('apim.throttling', 'username', 'string', { notes: 'default: super admin credentials' }),
  key('apim.throttling', 'password', 'string', { secret: true, notes: 'default: super admin credentials' }),
  key('apim.throttling', 'receiver_username', 'string', { notes: 'default: super admin credentials' }),
  key('apim.throttling', 'receiver_password', 'string', { secret: true, notes: 'default: super admin credentials' }),
  key('apim.throttling', 'policy_deploy.username', 'string', { notes: 'default: super admin credentials' }),
  key('apim.throttling', 'policy_deploy.password', 'string', { secret: true, notes: 'default: super admin credentials' }),
  key('apim.throttling', 'publisher.max_idle', 'integer', { default: 1000 }),
  key('apim.throttling', 'publisher.init_idle_size', 'integer', { default: 200 }),
  key('apim.throttling', 'publisher.pool_size', 'integer', { default: 200 }),
  key('apim.throttling', 'publisher.max_pool_size', 'integer', { default: 1000 }),
  key('apim.throttling', 'publisher.keep_alive_time', 'duration', { default: 200000, notes: '200s.' }),
  key('apim.throttling', 'service_url', 'string', { required: true }),
  key('apim.throttling', 'decision_connection_type', 'string', { default: 'andes', allowed: ['andes'] }),

  // [apim.throttling.blacklist_condition]
  key('apim.throttling.blacklist_condition', 'start_delay', 'duration', { default: 300000, notes: '5m; also written blacklist_condition.start_delay in [apim.throttling].' }),
  key('apim.throttling.blacklist_condition', 'period', 'duration', { default: 3600000, notes: '1h.' }),
  // [apim.throttling.jms]
  key('apim.throttling.jms', 'start_delay', 'duration', { default: 300000, notes: '5m; also written jms.start_delay in [apim.throttling], whose table says undefined.' }),
  // [apim.throttling.event_sync]
  key('apim.throttling.event_sync', 'hostName', 'string', { default: '0.0.0.0' }),
  key('apim.throttling.event_sync', 'port', 'integer', { default: 11224, port: true }),
  // [apim.throttling.event_management]
  key('apim.throttling.event_management', 'hostName', 'string', { default: '0.0.0.0' }),
  key('apim.throttling.event_management', 'port', 'integer', { default: 10005, port: true }),
  // [apim.throttling.policy_deploy.tenant_loading]
  key('apim.throttling.policy_deploy.tenant_loading', 'tenants', 'string[]', { default: ['*'], notes: 'also written policy_deploy.tenant_loading.tenants in [apim.throttling].' }),

  // [[apim.throttling.url_group]]
  itemKey('apim.throttling.url_group', 'traffic_manager_urls', 'string[]', { required: true, notes: 'items like tcp://<host>:9611' }),
  itemKey('apim.throttling.url_group', 'traffic_manager_auth_urls', 'string[]', { required: true, notes: 'items like ssl://<host>:9711' }),
  itemKey('apim.throttling.url_group', 'type', 'string', { allowed: ['failover', 'loadbalance'] }),
] as const;

/** [transport.receiver] and [transport.binary.agent]: the binary transport that carries throttle events. */
export const THROTTLE_DATA_TRANSPORT = [
  // [transport.receiver]
  key('transport.receiver', 'enable', 'boolean'),
  key('transport.receiver', 'tcpPort', 'integer', { default: 9611, port: true }),
  key('transport.receiver', 'sslPort', 'integer', { default: 9711, port: true }),
  key('transport.receiver', 'sslEnabledProtocols', 'string[]', { default: ['TLSv1', 'TLSv1.1', 'TLSv1.2'] }),
  key('transport.receiver', 'ciphers', 'string[]', { notes: 'type not stated; TLS cipher names.' }),
  key('transport.receiver', 'sslReceiverThreadPoolSize', 'integer', { default: 100 }),
  key('transport.receiver', 'tcpReceiverThreadPoolSize', 'integer', { default: 100 }),

  // [transport.binary.agent]
  key('transport.binary.agent', 'queue_size', 'integer', { default: 32768, notes: 'sample value' }),
  key('transport.binary.agent', 'batch_size', 'integer', { default: 200, notes: 'sample value' }),
  key('transport.binary.agent', 'core_pool_size', 'integer', { default: 1, notes: 'sample value' }),
  key('transport.binary.agent', 'socket_timeout_ms', 'duration', { default: 30000, notes: 'sample value; ms.' }),
  key('transport.binary.agent', 'max_pool_size', 'integer', { default: 1, notes: 'sample value' }),
  key('transport.binary.agent', 'keep_alive_time_in_pool', 'integer', { default: 20, notes: 'sample value' }),
  key('transport.binary.agent', 'reconnection_interval', 'integer', { default: 30, notes: 'sample value' }),
  key('transport.binary.agent', 'max_transport_pool_size', 'integer', { default: 250, notes: 'sample value' }),
  key('transport.binary.agent', 'max_idle_connections', 'integer', { default: 250, notes: 'sample value' }),
  key('transport.binary.agent', 'eviction_time_period', 'integer', { default: 5500, notes: 'sample value' }),
  key('transport.binary.agent', 'min_idle_time_in_pool', 'integer', { default: 5000, notes: 'sample value' }),
  key('transport.binary.agent', 'secure_max_transport_pool_size', 'integer', { default: 250, notes: 'sample value' }),
  key('transport.binary.agent', 'secure_max_idle_connections', 'integer', { default: 250, notes: 'sample value' }),
  key('transport.binary.agent', 'secure_eviction_time_period', 'integer', { default: 5500, notes: 'sample value' }),
  key('transport.binary.agent', 'secure_min_idle_time_in_pool', 'integer', { default: 5000, notes: 'sample value' }),
  key('transport.binary.agent', 'max_reconnection_interval', 'integer', { default: 3600, notes: 'sample value' }),
] as const;
