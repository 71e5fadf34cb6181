import { key, itemKey } from './types.js';

/** Configuration Catalog, Part A: server, databases, JWT, gateways, caches, analytics, key manager, AI, OAuth, notifications, devportal, CORS, throttling, workflow, SDK, tracing, revocation, event hub, e-mail. */
export const PART_A = [
  // [server]
  key('server', 'hostname', 'string', { default: 'localhost', required: true, notes: 'Host name or IP of the node.' }),
  key('server', 'offset', 'integer', { default: 0, notes: 'Port offset added to every runtime port.' }),
  key('server', 'mode', 'string', { default: 'single', allowed: ['single', 'ha'] }),
  key('server', 'base_path', 'string', { notes: 'default: built from protocol, host and management port' }),
  key('server', 'server_role', 'string', {
    default: 'default', required: true,
    allowed: ['default', 'api-devportal', 'api-key-manager', 'api-publisher', 'gateway-worker', 'traffic-manager'],
  }),
  key('server', 'enableMTOM', 'boolean', { default: false }),
  key('server', 'enableSwA', 'boolean', { default: false, notes: 'Processes files attached to SOAP messages when true.' }),
  key('server', 'disable_shutdown_from_ui', 'boolean', { default: false }),
  key('server', 'disable_restart_from_ui', 'boolean', { default: false }),
  key('server', 'discard_empty_caches', 'boolean', { default: false }),

  // [super_admin]
  key('super_admin', 'username', 'string', { notes: 'default: built-in administrator name' }),
  key('super_admin', 'password', 'string', { secret: true }),
  key('super_admin', 'create_admin_account', 'boolean', { default: true }),

  // [database_configuration]
  key('database_configuration', 'enable_h2_console', 'boolean', { default: false, notes: 'true allows browsing the embedded database from a browser.' }),

  // [database.apim_db]
  key('database.apim_db', 'type', 'string', { default: 'h2', allowed: ['mysql', 'h2', 'mssql', 'postgre', 'oracle', 'db2'] }),
  key('database.apim_db', 'hostname', 'string', { notes: 'Use with port, or use url; url overrides both.' }),
  key('database.apim_db', 'port', 'integer', { notes: 'catalog type string; database server port (not offset).' }),
  key('database.apim_db', 'url', 'string', { notes: 'default: embedded database URL; required for h2.' }),
  key('database.apim_db', 'username', 'string', { notes: 'default: default account name' }),
  key('database.apim_db', 'password', 'string', { secret: true }),
  key('database.apim_db', 'validationQuery', 'string', { default: 'SELECT 1', notes: 'apim_db only.' }),
  key('database.apim_db', 'pool_options.maxActive', 'integer', { default: 50, notes: 'catalog type string; max active connections.' }),
  key('database.apim_db', 'pool_options.maxWait', 'duration', { default: 60000, notes: 'catalog type string; ms to wait for a free connection.' }),
  key('database.apim_db', 'pool_options.testOnBorrow', 'boolean', { default: true, notes: 'catalog type string, takes true/false' }),
  key('database.apim_db', 'pool_options.validationInterval', 'duration', { default: 30000, notes: 'catalog type string; ms.' }),
  key('database.apim_db', 'pool_options.defaultAutoCommit', 'boolean', { default: true, notes: 'catalog type string, takes true/false' }),

  // [database.shared_db]
  key('database.shared_db', 'type', 'string', { default: 'h2', allowed: ['mysql', 'h2', 'mssql', 'postgre', 'oracle', 'db2'] }),
  key('database.shared_db', 'url', 'string', { notes: 'default: embedded database URL; required for h2.' }),
  key('database.shared_db', 'username', 'string', { notes: 'default: default account name' }),
  key('database.shared_db', 'password', 'string', { secret: true }),

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

  // [apim.cache.gateway_token]
  key('apim.cache.gateway_token', 'enable', 'boolean', { default: true, notes: 'Use either this cache or the key manager cache, not both.' }),
  key('apim.cache.gateway_token', 'expiry_time', 'duration', { default: 900000, notes: '15 minutes.' }),
  // [apim.cache.resource]
  key('apim.cache.resource', 'enable', 'boolean', { default: true, notes: 'expires in 15 minutes.' }),
  // [apim.cache.km_token]
  key('apim.cache.km_token', 'enable', 'boolean', { default: false }),
  key('apim.cache.km_token', 'expiry_time', 'duration', { default: 900000, notes: '15 minutes.' }),
  // [apim.cache.recent_apis]
  key('apim.cache.recent_apis', 'enable', 'boolean', { default: false, notes: 'expires in 15 minutes.' }),
  // [apim.cache.scopes]
  key('apim.cache.scopes', 'enable', 'boolean', { default: true, notes: 'expires in 15 minutes.' }),
  // [apim.cache.publisher_roles]
  key('apim.cache.publisher_roles', 'enable', 'boolean', { default: true, notes: 'expires in 15 minutes.' }),
  // [apim.cache.jwt_claim]
  key('apim.cache.jwt_claim', 'enable', 'boolean', { default: true }),
  key('apim.cache.jwt_claim', 'expiry_time', 'duration', { notes: 'default: same as JWT expiry' }),
  // [apim.cache.tags]
  key('apim.cache.tags', 'expiry_time', 'duration', { default: 120000, notes: '2m; the cache is disabled when undefined.' }),

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

  // [apim.ai]
  key('apim.ai', 'enable', 'boolean', { default: true, required: true }),
  key('apim.ai', 'token', 'string', { required: true, secret: true }),
  key('apim.ai', 'endpoint', 'string'),
  key('apim.ai', 'default_request_timeout', 'integer', { default: 30, notes: 'seconds.' }),
  // [apim.ai.failover_configurations]
  key('apim.ai.failover_configurations', 'failover_endpoints_limit', 'integer', { default: 10 }),
  key('apim.ai.failover_configurations', 'default_request_timeout', 'integer', { default: 30, notes: 'seconds.' }),
  // [apim.mcp]
  key('apim.mcp', 'enable', 'boolean', { default: true, required: true }),

  // [apim.oauth_config]
  key('apim.oauth_config', 'enable_outbound_auth_header', 'boolean', { default: false, notes: "catalog type string, takes true/false; sends the client's Authorization header to the backend." }),
  key('apim.oauth_config', 'auth_header', 'string', { default: 'Authorization' }),
  key('apim.oauth_config', 'revoke_endpoint', 'string', { notes: 'default: {base_url}/oauth2/revoke' }),
  key('apim.oauth_config', 'enable_token_encryption', 'boolean', { default: false, notes: 'catalog type string, takes true/false; encrypts stored tokens.' }),
  key('apim.oauth_config', 'enable_token_hashing', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.oauth_config', 'allowed_scopes', 'string[]', { default: ['^device_.*', 'openid'], notes: 'Regular expressions; catalog: one pattern for the device_ prefix plus openid.' }),

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

  // [apimgt.mutual_ssl]
  key('apimgt.mutual_ssl', 'certificate_header', 'string', { notes: 'default: a vendor-prefixed client-certificate header; sample SSL-CLIENT-CERT.' }),
  key('apimgt.mutual_ssl', 'enable_client_validation', 'boolean', { default: false, notes: 'true when mutual TLS ends at a load balancer.' }),
  key('apimgt.mutual_ssl', 'client_certificate_encode', 'boolean', { default: false }),
  key('apimgt.mutual_ssl', 'enable_certificate_chain_validation', 'boolean', { default: false }),

  // [security_audit]
  key('security_audit', 'api_token', 'string', { required: true, secret: true }),
  key('security_audit', 'collection_id', 'string', { required: true }),
  key('security_audit', 'global', 'boolean', { default: true }),
  key('security_audit', 'base_url', 'string', { notes: 'Audit platform URL.' }),

  // [apim.devportal]
  key('apim.devportal', 'url', 'string', { required: true, notes: 'default: {base_url}/devportal' }),
  key('apim.devportal', 'enable_application_sharing', 'boolean', { default: false }),
  key('apim.devportal', 'application_sharing_type', 'string', { default: 'default', allowed: ['default', 'saml'] }),
  key('apim.devportal', 'application_sharing_impl', 'string', { notes: 'Wins over application_sharing_type when both are set.' }),
  key('apim.devportal', 'application_sharing_claim', 'string', { notes: 'default: organization claim URI' }),
  key('apim.devportal', 'login_username_case_insensitive', 'boolean', { default: true }),
  key('apim.devportal', 'display_multiple_versions', 'boolean', { default: false }),
  key('apim.devportal', 'display_deprecated_apis', 'boolean', { default: false }),
  key('apim.devportal', 'enable_comments', 'boolean', { default: true }),
  key('apim.devportal', 'enable_ratings', 'boolean', { default: true }),
  key('apim.devportal', 'enable_forum', 'boolean', { default: true }),
  key('apim.devportal', 'mode', 'string', { default: 'HYBRID', allowed: ['HYBRID', 'API_ONLY', 'MCP_ONLY'], notes: 'HYBRID serves APIs and MCP servers.' }),

  // [apim.cors]
  key('apim.cors', 'enable', 'boolean', { default: true }),
  key('apim.cors', 'allow_origins', 'string[]', { default: ['*'], notes: 'catalog type string, default *.' }),
  key('apim.cors', 'allow_methods', 'string[]', { default: ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'] }),
  key('apim.cors', 'allow_headers', 'string[]', { default: ['authorization', 'Access-Control-Allow-Origin', 'Content-Type', 'SOAPAction'] }),
  key('apim.cors', 'allow_credentials', 'boolean', { default: false, notes: 'When true the origin must not be *.' }),

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

  // [apim.workflow]
  key('apim.workflow', 'enable', 'boolean', { default: false }),
  key('apim.workflow', 'service_url', 'string', { notes: 'default: {workflow_host}:9445/bpmn' }),
  key('apim.workflow', 'wf_engine_user', 'string', { notes: 'default: super admin credentials' }),
  key('apim.workflow', 'wf_engine_pass', 'string', { secret: true, notes: 'default: super admin credentials' }),
  key('apim.workflow', 'callback_endpoint', 'string'),
  key('apim.workflow', 'token_endpoint', 'string'),
  key('apim.workflow', 'client_registration_endpoint', 'string'),
  key('apim.workflow', 'client_registration_username', 'string'),
  key('apim.workflow', 'client_registration_password', 'string', { secret: true }),

  // [apim.sdk]
  key('apim.sdk', 'group_id', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'artifact_id', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'model_package', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'api_package', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'supported_languages', 'string[]', {
    default: ['android', 'java', 'javascript', 'jmeter'],
    notes: 'allowed: android, java, csharp, dart, groovy, javascript, jmeter, perl, php, python, ruby, swift5, clojure',
  }),

  // [apim.open_tracer]
  key('apim.open_tracer', 'remote_tracer.enable', 'boolean', { default: false }),
  key('apim.open_tracer', 'remote_tracer.name', 'string', { notes: 'default: a tracer name' }),
  key('apim.open_tracer', 'remote_tracer.properties.hostname', 'string', { default: 'localhost' }),
  key('apim.open_tracer', 'remote_tracer.properties.port', 'integer', { default: 9411, notes: 'Remote collector port; not shifted by server.offset.' }),
  key('apim.open_tracer', 'log_tracer.enable', 'boolean', { default: false }),

  // [apim.token.revocation]
  key('apim.token.revocation', 'notifier_impl', 'string', { notes: 'Only for a custom implementation; sends to a message topic.' }),
  key('apim.token.revocation', 'enable_realtime_notifier', 'boolean'),
  key('apim.token.revocation', 'realtime_notifier.ttl', 'duration', { default: 5000, notes: 'ms.' }),
  key('apim.token.revocation', 'enable_persistent_notifier', 'boolean'),
  key('apim.token.revocation', 'persistent_notifier.hostname', 'string', { notes: 'Key-value store URL.' }),
  key('apim.token.revocation', 'persistent_notifier.ttl', 'duration', { default: 5000, notes: 'ms.' }),
  key('apim.token.revocation', 'persistent_notifier.username', 'string'),
  key('apim.token.revocation', 'persistent_notifier.password', 'string', { secret: true }),

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

  // [apim.notification]
  key('apim.notification', 'from_address', 'string', { notes: 'E-mail address.' }),
  key('apim.notification', 'username', 'string', { notes: 'E-mail address.' }),
  key('apim.notification', 'password', 'string', { secret: true }),
  key('apim.notification', 'hostname', 'string', { notes: 'Mail server.' }),
  key('apim.notification', 'signature', 'string'),
  key('apim.notification', 'port', 'integer', { default: 25, notes: 'catalog type string; mail server port (not offset).' }),
  key('apim.notification', 'enable_start_tls', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('apim.notification', 'enable_authentication', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),

  // [output_adapter.email]
  key('output_adapter.email', 'from_address', 'string', { notes: 'E-mail address; this section serves password recovery.' }),
  key('output_adapter.email', 'username', 'string', { notes: 'E-mail address.' }),
  key('output_adapter.email', 'password', 'string', { secret: true }),
  key('output_adapter.email', 'hostname', 'string', { notes: 'Mail server.' }),
  key('output_adapter.email', 'signature', 'string'),
  key('output_adapter.email', 'port', 'integer', { default: 25, notes: 'catalog type string; mail server port (not offset).' }),
  key('output_adapter.email', 'enable_start_tls', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('output_adapter.email', 'enable_authentication', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),

  // [tenant_mgt]
  key('tenant_mgt', 'enable_email_domain', 'boolean', { default: false, notes: 'catalog type string, takes true/false; allows e-mail login for tenant users.' }),
] as const;
