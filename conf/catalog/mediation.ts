import { key, itemKey } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): mediation.
 */

/** Message builders and formatters, [mediation], [[synapse_handlers]] and [apim.transport_headers]. */
export const MEDIATION = [
  // [message_builders]
  key('message_builders', 'application_xml', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'form_urlencoded', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'multipart_form_data', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'text_plain', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'application_json', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'json_badgerfish', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'text_javascript', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'octet_stream', 'string', { notes: 'default: built-in class' }),
  key('message_builders', 'application_binary', 'string', { notes: 'default: built-in class' }),

  // [blocking.message_builders]
  key('blocking.message_builders', 'application_xml', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'form_urlencoded', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'multipart_form_data', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'text_plain', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'application_json', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'json_badgerfish', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'text_javascript', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'octet_stream', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_builders', 'application_binary', 'string', { notes: 'default: built-in class' }),

  // [message_formatters]
  key('message_formatters', 'application_xml', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'form_urlencoded', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'multipart_form_data', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'text_plain', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'application_json', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'json_badgerfish', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'text_javascript', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'octet_stream', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'application_binary', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'text_xml', 'string', { notes: 'default: built-in class' }),
  key('message_formatters', 'soap_xml', 'string', { notes: 'default: built-in class' }),

  // [blocking.message_formatters]
  key('blocking.message_formatters', 'application_xml', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'form_urlencoded', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'multipart_form_data', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'text_plain', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'application_json', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'json_badgerfish', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'text_javascript', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'octet_stream', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'application_binary', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'text_xml', 'string', { notes: 'default: built-in class' }),
  key('blocking.message_formatters', 'soap_xml', 'string', { notes: 'default: built-in class' }),

  // [[custom_message_builders]]
  itemKey('custom_message_builders', 'content_type', 'string', { required: true }),
  itemKey('custom_message_builders', 'class', 'string', { required: true }),
  // [[custom_message_formatters]]
  itemKey('custom_message_formatters', 'content_type', 'string', { required: true }),
  itemKey('custom_message_formatters', 'class', 'string', { required: true }),
  // [[blocking.custom_message_builders]]
  itemKey('blocking.custom_message_builders', 'content_type', 'string', { required: true }),
  itemKey('blocking.custom_message_builders', 'class', 'string', { required: true }),
  // [[blocking.custom_message_formatters]]
  itemKey('blocking.custom_message_formatters', 'content_type', 'string', { required: true }),
  itemKey('blocking.custom_message_formatters', 'class', 'string', { required: true }),

  // [mediation]
  key('mediation', 'synapse.core_threads', 'integer', { default: 20 }),
  key('mediation', 'synapse.max_threads', 'integer', { default: 100 }),
  key('mediation', 'synapse.threads_queue_length', 'integer', { default: 10, notes: '-1 is unbounded.' }),
  key('mediation', 'synapse.global_timeout_interval', 'duration', { default: 120000, notes: '120000ms; a later response is dropped and a warning logged.' }),
  key('mediation', 'synapse.enable_xpath_dom_failover', 'boolean', { default: true }),
  key('mediation', 'synapse.temp_data_chunk_size', 'integer', { default: 3072 }),
  key('mediation', 'synapse.command_debugger_port', 'integer', { default: 9005, port: true }),
  key('mediation', 'synapse.event_debugger_port', 'integer', { default: 9006, port: true }),
  key('mediation', 'synapse.script_mediator_pool_size', 'integer', { default: 15 }),
  key('mediation', 'synapse.enable_xml_nil', 'boolean', { default: false }),
  key('mediation', 'synapse.disable_auto_primitive_regex', 'string', { notes: 'default: a numeric pattern' }),
  key('mediation', 'synapse.disable_custom_replace_regex', 'string', { default: '@@@' }),
  key('mediation', 'synapse.enable_namespace_declaration', 'boolean', { default: false }),
  key('mediation', 'synapse.build_valid_nc_name', 'boolean', { default: false }),
  key('mediation', 'synapse.enable_auto_primitive', 'boolean', { default: false }),
  key('mediation', 'synapse.json_out_auto_array', 'boolean', { default: false }),
  key('mediation', 'synapse.preserve_namespace_on_xml_to_json', 'boolean', { default: false }),
  key('mediation', 'flow.statistics.enable', 'boolean', { default: false }),
  key('mediation', 'flow.statistics.capture_all', 'boolean', { default: false }),
  key('mediation', 'statistics.enable_clean', 'boolean', { default: true }),
  key('mediation', 'statistics.clean_interval', 'duration', { default: 1000, notes: '1000ms.' }),
  key('mediation', 'stat.tracer.collect_payloads', 'boolean', { default: false }),
  key('mediation', 'stat.tracer.collect_mediation_properties', 'boolean', { default: false }),
  key('mediation', 'inbound.core_threads', 'integer', { default: 20 }),
  key('mediation', 'inbound.max_threads', 'integer', { default: 100 }),

  // [[synapse_handlers]]
  itemKey('synapse_handlers', 'name', 'string', { required: true }),
  itemKey('synapse_handlers', 'class', 'string', { required: true }),
  // [synapse_handlers]
  key('synapse_handlers', 'enabled_global_handlers', 'string[]'),
  // [synapse_handlers.<handler_name>]
  key('synapse_handlers.<handler_name>', 'enabled', 'boolean'),
  key('synapse_handlers.<handler_name>', 'class', 'string', { required: true }),

  // [apim.transport_headers]
  key('apim.transport_headers', 'enabled', 'boolean', { default: false }),
  key('apim.transport_headers', 'removeRequestHeaders', 'boolean', { default: false, notes: 'catalog type string, takes true/false; removes request headers from failure responses; always for OPTIONS.' }),
  key('apim.transport_headers', 'preserveRequestHeaders', 'string[]', { notes: 'Comma list; effective only when removal is on.' }),
  key('apim.transport_headers', 'excludeRequestHeaders', 'string[]', { notes: 'Comma list removed from responses to the client.' }),
  key('apim.transport_headers', 'excludeResponseHeaders', 'string[]', { notes: 'Comma list removed from requests to the backend.' }),
] as const;
