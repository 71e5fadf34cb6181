import { key, itemKey } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): the portals and the publisher.
 * The developer portal, AI features, workflows, SDK generation, e-mail, the search index, governance and
 * the registry's handlers.
 */

/** [apim.ai] and [apim.mcp]. */
export const AI = [
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
] as const;

/** [apim.devportal]. */
export const DEVPORTAL = [
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
] as const;

/** [apim.workflow]. */
export const WORKFLOW = [
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
] as const;

/** [apim.sdk]. */
export const SDK = [
  // [apim.sdk]
  key('apim.sdk', 'group_id', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'artifact_id', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'model_package', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'api_package', 'string', { notes: 'Generated project naming.' }),
  key('apim.sdk', 'supported_languages', 'string[]', {
    default: ['android', 'java', 'javascript', 'jmeter'],
    notes: 'allowed: android, java, csharp, dart, groovy, javascript, jmeter, perl, php, python, ruby, swift5, clojure',
  }),
] as const;

/** [apim.notification] and [output_adapter.email]: mail servers. */
export const EMAIL = [
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
] as const;

/** [indexing]: the registry search index. */
export const INDEXING = [
  // [indexing]
  key('indexing', 'enable', 'boolean', { default: true, notes: 'Needed only on publisher and developer portal nodes.' }),
  key('indexing', 'starting_delay', 'integer', { default: 35, notes: 'seconds; catalog type string.' }),
  key('indexing', 'frequency', 'integer', { default: 3, notes: 'seconds; catalog type string.' }),
  key('indexing', 'bach_size', 'integer', { default: 40, notes: 'catalog type string; resources per indexing thread.' }),
  key('indexing', 'pool_size', 'integer', { default: 40, notes: 'catalog type string; worker threads.' }),
  key('indexing', 're_indexing', 'integer', { min: 1, notes: 'catalog type string; raise by one to reindex after deleting the index directory.' }),
] as const;

/** [governance] and [apim.governance.scheduler]. */
export const GOVERNANCE = [
  // [governance]
  key('governance', 'life_cycle_checklist_items_enabled', 'boolean', { default: true }),

  // [apim.governance.scheduler]
  key('apim.governance.scheduler', 'thread_pool_size', 'integer', { default: 20 }),
  key('apim.governance.scheduler', 'queue_size', 'integer', { default: 20 }),
  key('apim.governance.scheduler', 'task_check_interval_minutes', 'integer', { default: 2, notes: 'minutes.' }),
  key('apim.governance.scheduler', 'task_cleanup_interval_minutes', 'integer', { default: 30, notes: 'minutes.' }),
] as const;

/** [[registry_handler]]s of the registry. */
export const REGISTRY_HANDLERS = [
  // [[registry_handler]]
  itemKey('registry_handler', 'class', 'string', { required: true }),
  itemKey('registry_handler', 'filter_class', 'string', { required: true }),
  // [registry_handler.properties]
  itemKey('registry_handler', 'properties', 'table', { notes: 'Key-value custom properties.' }),
  // [[registry_handler.nested_property]]
  itemKey('registry_handler.nested_property', 'enable', 'boolean', { default: false }),
  itemKey('registry_handler.nested_property', 'name', 'string', { required: true }),
  itemKey('registry_handler.nested_property', 'type', 'string', { default: 'xml', allowed: ['xml', 'null'] }),
  // [[registry_handler.nested_property.<parent_property_name>]]
  itemKey('registry_handler.nested_property.<parent_property_name>', 'tag', 'string', { required: true }),
  itemKey('registry_handler.nested_property.<parent_property_name>', 'value', 'string', { required: true }),
  itemKey('registry_handler.nested_property.<parent_property_name>', 'key', 'string', { notes: 'Optional.' }),
  // [registry_handler.filter_properties]
  itemKey('registry_handler', 'filter_properties', 'table', { notes: 'Key-value filter settings such as mediaType.' }),
] as const;
