import { key, itemKey } from './types.js';

/** Configuration Catalog, Part B: tenancy, indexing, transports, builders, mediation, handlers, OAuth and grants, token persistence, user store, registry handlers, binary transport and the rest. */
export const PART_B = [
  // [multi_tenancy.<suite>]
  key('multi_tenancy.<suite>', 'disable_tenant_management_emails', 'boolean', { default: true }),
  key('multi_tenancy.<suite>', 'email_validation_mandatory_for_login', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'tenant_activation_moderated', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'super_admin_email', 'string', { notes: 'E-mail address.' }),
  key('multi_tenancy.<suite>', 'skip_summary_generator', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'notification_email', 'string', { notes: 'E-mail address.' }),
  key('multi_tenancy.<suite>', 'finance_notification_email', 'string', { notes: 'E-mail address.' }),
  key('multi_tenancy.<suite>', 'charge_on_registration', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'public_cloud_setup', 'boolean', { default: true }),
  key('multi_tenancy.<suite>', '<web_analytics>_url', 'string', { notes: 'URL of a web analytics script.' }),
  key('multi_tenancy.<suite>', 'sso_loading_message', 'string', { notes: 'Text shown while single sign-on loads.' }),

  // [multi_tenancy.<suite>.<payment_provider>]
  key('multi_tenancy.<suite>.<payment_provider>', 'url', 'string', { notes: 'Payment account.' }),
  key('multi_tenancy.<suite>.<payment_provider>', 'username', 'string'),
  key('multi_tenancy.<suite>.<payment_provider>', 'password', 'string', { secret: true }),
  key('multi_tenancy.<suite>.<payment_provider>', 'signature', 'string', { secret: true, notes: 'Payment account API signature.' }),
  key('multi_tenancy.<suite>.<payment_provider>', 'environment', 'string'),

  // [multi_tenancy.<suite>.manager_service]
  key('multi_tenancy.<suite>.manager_service', 'url', 'string'),
  key('multi_tenancy.<suite>.manager_service', 'admin_username', 'string'),
  key('multi_tenancy.<suite>.manager_service', 'admin_password', 'string', { secret: true }),

  // [multi_tenancy.usage_agent.data_persistence_task]
  key('multi_tenancy.usage_agent.data_persistence_task', 'startup_delay_in_ms', 'duration', { default: 60000, notes: 'ms.' }),
  key('multi_tenancy.usage_agent.data_persistence_task', 'records_per_execution', 'integer', { default: 100 }),
  key('multi_tenancy.usage_agent.data_persistence_task', 'execution_interval_in_ms', 'integer', { default: -1, notes: 'milliseconds; catalog default -1.' }),

  // [multi_tenancy.throttling_manager_tasks]
  key('multi_tenancy.throttling_manager_tasks', 'data_providers', 'string[]', { notes: 'Class names.' }),
  // [multi_tenancy.throttling_manager_tasks.parameters]
  key('multi_tenancy.throttling_manager_tasks.parameters', 'interval', 'integer', { default: 10, notes: 'seconds.' }),
  key('multi_tenancy.throttling_manager_tasks.parameters', 'delay', 'integer', { default: 60, notes: 'seconds.' }),

  // [multi_tenancy.cloud_services]
  key('multi_tenancy.cloud_services', 'name', 'string'),
  key('multi_tenancy.cloud_services', 'default', 'boolean', { default: true }),
  key('multi_tenancy.cloud_services', 'key', 'string'),
  key('multi_tenancy.cloud_services', 'label', 'string'),
  key('multi_tenancy.cloud_services', 'link', 'string'),
  key('multi_tenancy.cloud_services', 'description', 'string'),

  // [multi_tenancy.billing.package.<package>]
  key('multi_tenancy.billing.package.<package>', 'name', 'string', { notes: 'Packages: demo, smb, custom.' }),
  key('multi_tenancy.billing.package.<package>', 'subscription_charge', 'integer', { default: 0 }),
  // [multi_tenancy.billing.package.<package>.users]
  key('multi_tenancy.billing.package.<package>.users', 'limit', 'string', { notes: 'unlimited allowed; sample demo 1.' }),
  key('multi_tenancy.billing.package.<package>.users', 'charge', 'string', { default: '0' }),
  // [multi_tenancy.billing.package.<package>.resource_volume]
  key('multi_tenancy.billing.package.<package>.resource_volume', 'limit', 'string', { notes: 'unlimited allowed; sample demo 20, smb 50, custom 1536.' }),
  key('multi_tenancy.billing.package.<package>.resource_volume', 'overuse_charge', 'string', { default: '0', notes: 'sample custom 0.03.' }),
  // [multi_tenancy.billing.package.<package>.bandwidth]
  key('multi_tenancy.billing.package.<package>.bandwidth', 'limit', 'string', { notes: 'unlimited allowed; sample demo 50, smb 150, custom 50.' }),
  key('multi_tenancy.billing.package.<package>.bandwidth', 'overuse_charge', 'string', { default: '0' }),

  // [indexing]
  key('indexing', 'enable', 'boolean', { default: true, notes: 'Needed only on publisher and developer portal nodes.' }),
  key('indexing', 'starting_delay', 'integer', { default: 35, notes: 'seconds; catalog type string.' }),
  key('indexing', 'frequency', 'integer', { default: 3, notes: 'seconds; catalog type string.' }),
  key('indexing', 'bach_size', 'integer', { default: 40, notes: 'catalog type string; resources per indexing thread.' }),
  key('indexing', 'pool_size', 'integer', { default: 40, notes: 'catalog type string; worker threads.' }),
  key('indexing', 're_indexing', 'integer', { min: 1, notes: 'catalog type string; raise by one to reindex after deleting the index directory.' }),

  // [transport.http.properties]
  key('transport.http.properties', 'port', 'integer', { default: 9763, required: true, port: true, notes: 'catalog shared table says 9443; the sample gives HTTP 9763.' }),
  key('transport.http.properties', 'redirectPort', 'integer', { default: 9443, port: true, notes: 'catalog type string; sample value.' }),
  key('transport.http.properties', 'bindOnInit', 'boolean', { default: false, required: true }),
  key('transport.http.properties', 'maxHttpHeaderSize', 'integer', { default: 8192, required: true }),
  key('transport.http.properties', 'acceptorThreadCount', 'integer', { default: 2 }),
  key('transport.http.properties', 'maxThreads', 'integer', { default: 250 }),
  key('transport.http.properties', 'minSpareThreads', 'integer', { default: 50 }),
  key('transport.http.properties', 'disableUploadTimeout', 'boolean', { default: false }),
  key('transport.http.properties', 'connectionUploadTimeout', 'duration', { default: 120000, notes: 'catalog type integer, ms.' }),
  key('transport.http.properties', 'maxKeepAliveRequests', 'integer', { default: 120000, notes: 'sample 200.' }),
  key('transport.http.properties', 'keepAliveTimeout', 'duration', { default: 60000, notes: 'catalog type integer, ms.' }),
  key('transport.http.properties', 'acceptCount', 'integer', { default: 200 }),
  key('transport.http.properties', 'server', 'string', { notes: 'default: product server name' }),
  key('transport.http.properties', 'compression', 'string', { default: 'on' }),
  key('transport.http.properties', 'compressionMinSize', 'integer', { default: 2048 }),
  key('transport.http.properties', 'noCompressionUserAgents', 'string', { notes: 'default: two sample agent names' }),
  key('transport.http.properties', 'compressibleMimeType', 'string', { notes: 'default: comma list of text, script, xml, css, xslt, gif and jpeg types' }),
  key('transport.http.properties', 'URIEncoding', 'string', { default: 'UTF-8' }),

  // [transport.https.properties]
  key('transport.https.properties', 'port', 'integer', { default: 9443, required: true, port: true }),
  key('transport.https.properties', 'redirectPort', 'integer', { default: 9443, port: true, notes: 'catalog type string; sample value.' }),
  key('transport.https.properties', 'bindOnInit', 'boolean', { default: false, required: true }),
  key('transport.https.properties', 'maxHttpHeaderSize', 'integer', { default: 8192, required: true }),
  key('transport.https.properties', 'acceptorThreadCount', 'integer', { default: 2 }),
  key('transport.https.properties', 'maxThreads', 'integer', { default: 250 }),
  key('transport.https.properties', 'minSpareThreads', 'integer', { default: 50 }),
  key('transport.https.properties', 'disableUploadTimeout', 'boolean', { default: false }),
  key('transport.https.properties', 'connectionUploadTimeout', 'duration', { default: 120000, notes: 'catalog type integer, ms.' }),
  key('transport.https.properties', 'maxKeepAliveRequests', 'integer', { default: 120000, notes: 'sample 200.' }),
  key('transport.https.properties', 'keepAliveTimeout', 'duration', { default: 60000, notes: 'catalog type integer, ms.' }),
  key('transport.https.properties', 'acceptCount', 'integer', { default: 200 }),
  key('transport.https.properties', 'server', 'string', { notes: 'default: product server name' }),
  key('transport.https.properties', 'compression', 'string', { default: 'on' }),
  key('transport.https.properties', 'compressionMinSize', 'integer', { default: 2048 }),
  key('transport.https.properties', 'noCompressionUserAgents', 'string', { notes: 'default: two sample agent names' }),
  key('transport.https.properties', 'compressibleMimeType', 'string', { notes: 'default: comma list of text, script, xml, css, xslt, gif and jpeg types' }),
  key('transport.https.properties', 'URIEncoding', 'string', { default: 'UTF-8' }),
  key('transport.https.properties', 'enableLookups', 'boolean', { default: false }),
  key('transport.https.properties', 'scheme', 'string', { default: 'https' }),
  key('transport.https.properties', 'secure', 'boolean', { default: true }),
  key('transport.https.properties', 'SSLEnabled', 'boolean', { default: true }),

  // [transport.passthru_http]
  key('transport.passthru_http', 'listener.enable', 'boolean', { default: true }),
  key('transport.passthru_http', 'listener.parameters.port', 'integer', { default: 8280, port: true }),
  key('transport.passthru_http', 'listener.parameters.non-blocking', 'boolean', { default: true }),
  key('transport.passthru_http', 'listener.parameters.httpGetProcessor', 'string', { notes: 'Class name.' }),
  key('transport.passthru_http', 'listener.parameters.WSDLEPRPrefix', 'string', { required: true, notes: 'URL prefix for service endpoint references.' }),
  key('transport.passthru_http', 'listener.bind-address', 'string'),
  key('transport.passthru_http', 'sender.enable', 'boolean', { default: true }),
  key('transport.passthru_http', 'sender.parameters.non-blocking', 'boolean', { default: true }),
  key('transport.passthru_http', 'sender.warnOnHTTP500', 'string'),
  key('transport.passthru_http', 'sender.http.proxyHost', 'string', { notes: 'Proxy for outgoing messages.' }),
  key('transport.passthru_http', 'sender.http.proxyPort', 'integer', { notes: 'Proxy for outgoing messages (not offset).' }),
  key('transport.passthru_http', 'sender.http.nonProxyHosts', 'string', { notes: 'A period must precede an asterisk in wildcard sub-domains.' }),
  key('transport.passthru_http', 'sender.hostname_verifier', 'string'),

  // [transport.passthru_https]
  key('transport.passthru_https', 'listener.enable', 'boolean', { default: true }),
  key('transport.passthru_https', 'listener.parameters.port', 'integer', { default: 8243, port: true }),
  key('transport.passthru_https', 'listener.parameters.non-blocking', 'boolean', { default: true }),
  key('transport.passthru_https', 'listener.parameters.httpGetProcessor', 'string', { notes: 'Class name.' }),
  key('transport.passthru_https', 'listener.parameters.WSDLEPRPrefix', 'string', { required: true, notes: 'URL prefix for service endpoint references.' }),
  key('transport.passthru_https', 'listener.bind-address', 'string'),
  key('transport.passthru_https', 'sender.enable', 'boolean', { default: true }),
  key('transport.passthru_https', 'sender.parameters.non-blocking', 'boolean', { default: true }),
  key('transport.passthru_https', 'sender.warnOnHTTP500', 'string'),
  key('transport.passthru_https', 'sender.http.proxyHost', 'string', { notes: 'Proxy for outgoing messages.' }),
  key('transport.passthru_https', 'sender.http.proxyPort', 'integer', { notes: 'Proxy for outgoing messages (not offset).' }),
  key('transport.passthru_https', 'sender.http.nonProxyHosts', 'string', { notes: 'A period must precede an asterisk in wildcard sub-domains.' }),
  key('transport.passthru_https', 'sender.hostname_verifier', 'string'),
  key('transport.passthru_https', 'listener.parameters.SSLVerifyClient', 'string'),
  key('transport.passthru_https', 'listener.protocols', 'string[]', { default: ['TLSv1', 'TLSv1.1', 'TLSv1.2'], notes: 'TLS protocol versions: TLSv1, TLSv1.1, TLSv1.2.' }),
  key('transport.passthru_https', 'listener.ssl_profile.file_path', 'string'),
  key('transport.passthru_https', 'listener.ssl_profile_interval', 'duration', { default: 600000, notes: 'ms.' }),
  key('transport.passthru_https', 'listener.preferred_ciphers', 'string[]', { notes: 'TLS cipher names.' }),
  key('transport.passthru_https', 'listener.key_store.file_name', 'string'),
  key('transport.passthru_https', 'listener.key_store.type', 'string', { allowed: ['JKS', 'PKCS12', 'PEM'], caseInsensitive: true, notes: "PEM is Sluice's addition: one file with the private key and the certificate chain." }),
  key('transport.passthru_https', 'listener.key_store.password', 'string', { secret: true }),
  key('transport.passthru_https', 'listener.key_store.key_password', 'string', { secret: true }),
  key('transport.passthru_https', 'listener.trust_store.file_name', 'string'),
  key('transport.passthru_https', 'listener.trust_store.type', 'string'),
  key('transport.passthru_https', 'listener.trust_store.password', 'string', { secret: true }),
  key('transport.passthru_https', 'sender.key_store.file_name', 'string'),
  key('transport.passthru_https', 'sender.key_store.type', 'string', { allowed: ['JKS', 'PKCS12'] }),
  key('transport.passthru_https', 'sender.key_store.password', 'string', { secret: true }),
  key('transport.passthru_https', 'sender.key_store.key_password', 'string', { secret: true }),
  key('transport.passthru_https', 'sender.trust_store.file_name', 'string'),
  key('transport.passthru_https', 'sender.trust_store.type', 'string'),
  key('transport.passthru_https', 'sender.trust_store.password', 'string', { secret: true }),
  key('transport.passthru_https', 'sender.ssl_profile.file_path', 'string'),
  key('transport.passthru_https', 'sender.ssl_profile.interval', 'duration', { default: 600000, notes: 'ms.' }),

  // [passthru_http]
  key('passthru_http', 'http.socket.timeout', 'duration', { default: 180000, notes: 'catalog integer ms; sample 3m.' }),
  key('passthru_http', 'worker_pool_size_core', 'integer', { default: 400, notes: 'sample 300.' }),
  key('passthru_http', 'worker_pool_size_max', 'integer', { default: 400, notes: 'When reached, a blocked-worker-threads alert is logged.' }),
  key('passthru_http', 'worker_pool_queue_length', 'integer', { default: -1, notes: '-1 is unbounded; a bounded full queue drops messages.' }),
  key('passthru_http', 'io_buffer_size', 'integer', { default: 16384 }),
  key('passthru_http', 'http.max.connection.per.host.port', 'integer', { default: 32767 }),
  key('passthru_http', 'http.user.agent.preserve', 'boolean', { default: false }),
  key('passthru_http', 'http.server.preserve', 'boolean', { default: true }),
  key('passthru_http', 'http.headers.preserve', 'string[]', { default: ['Content-Type'] }),
  key('passthru_http', 'disable_connection_keepalive', 'boolean', { default: false }),
  key('passthru_http', 'max_open_connections', 'integer', { default: -1, notes: '-1 is no limit.' }),
  key('passthru_http', 'force_xml_validation', 'boolean', { default: false }),
  key('passthru_http', 'force_json_validation', 'boolean', { default: false }),

  // [transport.blocking_http]
  key('transport.blocking_http', 'sender.parameters.cacheHttpClient', 'boolean'),
  key('transport.blocking_http', 'sender.parameters.Transfer-Encoding', 'string', { allowed: ['chunked', 'true'] }),
  key('transport.blocking_http', 'sender.parameters.defaultMaxConnectionsPerHost', 'integer', { default: 200, notes: 'sample value.' }),
  key('transport.blocking_http', 'sender.parameters.OmitSOAP12Action', 'boolean'),
  key('transport.blocking_http', 'sender.parameters.SO_TIMEOUT', 'duration', { default: 60000, notes: 'catalog type integer, ms.' }),
  key('transport.blocking_http', 'sender.parameters.http.proxyHost', 'string', { notes: "written sender.parameters.'http.proxyHost' (quoted key)." }),
  key('transport.blocking_http', 'sender.parameters.http.proxyPort', 'integer', { notes: "written sender.parameters.'http.proxyPort' (quoted key); not offset." }),
  key('transport.blocking_http', 'sender.parameters.http.nonProxyHosts', 'string', { notes: "written sender.parameters.'http.nonProxyHosts' (quoted key)." }),

  // [transport.blocking_https]
  key('transport.blocking_https', 'sender.parameters.cacheHttpClient', 'boolean'),
  key('transport.blocking_https', 'sender.parameters.Transfer-Encoding', 'string', { allowed: ['chunked', 'true'] }),
  key('transport.blocking_https', 'sender.parameters.defaultMaxConnectionsPerHost', 'integer', { default: 200, notes: 'sample value.' }),
  key('transport.blocking_https', 'sender.parameters.OmitSOAP12Action', 'boolean'),
  key('transport.blocking_https', 'sender.parameters.SO_TIMEOUT', 'duration', { default: 60000, notes: 'catalog type integer, ms.' }),
  key('transport.blocking_https', 'sender.parameters.http.proxyHost', 'string', { notes: "written sender.parameters.'http.proxyHost' (quoted key)." }),
  key('transport.blocking_https', 'sender.parameters.http.proxyPort', 'integer', { notes: "written sender.parameters.'http.proxyPort' (quoted key); not offset." }),
  key('transport.blocking_https', 'sender.parameters.http.nonProxyHosts', 'string', { notes: "written sender.parameters.'http.nonProxyHosts' (quoted key)." }),

  // [transport.passthru_http.sender.parameters]
  key('transport.passthru_http.sender.parameters', 'proxyProfiles', 'string', { notes: 'XML-style profiles; elements targetHosts (list, * or pattern), proxyHost, proxyPort, proxyUserName, proxyPassword.' }),
  // [transport.passthru_https.sender.parameters]
  key('transport.passthru_https.sender.parameters', 'proxyProfiles', 'string', { notes: 'XML-style profiles; elements targetHosts (list, * or pattern), proxyHost, proxyPort, proxyUserName, proxyPassword.' }),

  // [[transport.http.proxy_profile]]
  itemKey('transport.http.proxy_profile', 'target_hosts', 'string[]'),
  itemKey('transport.http.proxy_profile', 'proxy_host', 'string'),
  itemKey('transport.http.proxy_profile', 'proxy_port', 'integer', { notes: 'Remote proxy port (not offset).' }),
  itemKey('transport.http.proxy_profile', 'proxy_username', 'string'),
  itemKey('transport.http.proxy_profile', 'proxy_password', 'string', { secret: true }),
  itemKey('transport.http.proxy_profile', 'bypass_hosts', 'string[]'),

  // [[transport.http.secured_proxy_profile]]
  itemKey('transport.http.secured_proxy_profile', 'target_hosts', 'string[]'),
  itemKey('transport.http.secured_proxy_profile', 'proxy_host', 'string'),
  itemKey('transport.http.secured_proxy_profile', 'proxy_port', 'integer', { notes: 'Remote proxy port (not offset).' }),
  itemKey('transport.http.secured_proxy_profile', 'proxy_username', 'string'),
  itemKey('transport.http.secured_proxy_profile', 'proxy_password', 'string', { secret: true }),
  itemKey('transport.http.secured_proxy_profile', 'bypass_hosts', 'string[]'),

  // [transport.ws]
  key('transport.ws', 'sender.enable', 'boolean', { default: false, required: true }),
  key('transport.ws', 'sender.parameters.ws.outflow.dispatch.sequence', 'string', { default: 'outflowDispatchSeq' }),
  key('transport.ws', 'sender.parameters.ws.outflow.dispatch.fault.sequence', 'string', { default: 'outflowFaultSeq' }),
  key('transport.ws', 'sender.parameters.wsSharedEventLoopPoolSize', 'integer', { default: 5 }),
  key('transport.ws', 'sender.parameter.customParameter', 'string', { notes: 'Replace the last word with a parameter name.' }),

  // [transport.wss]
  key('transport.wss', 'sender.enable', 'boolean', { default: false, required: true }),
  key('transport.wss', 'sender.parameters.ws.outflow.dispatch.sequence', 'string', { default: 'outflowDispatchSeq' }),
  key('transport.wss', 'sender.parameters.ws.outflow.dispatch.fault.sequence', 'string', { default: 'outflowFaultSeq' }),
  key('transport.wss', 'sender.parameters.wsSharedEventLoopPoolSize', 'integer', { default: 5 }),
  key('transport.wss', 'sender.parameter.customParameter', 'string', { notes: 'Replace the last word with a parameter name.' }),
  key('transport.wss', 'sender.trust_store.location', 'string', { required: true }),
  key('transport.wss', 'sender.trust_store.password', 'string', { required: true, secret: true }),

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

  // [governance]
  key('governance', 'life_cycle_checklist_items_enabled', 'boolean', { default: true }),

  // [apim.governance.scheduler]
  key('apim.governance.scheduler', 'thread_pool_size', 'integer', { default: 20 }),
  key('apim.governance.scheduler', 'queue_size', 'integer', { default: 20 }),
  key('apim.governance.scheduler', 'task_check_interval_minutes', 'integer', { default: 2, notes: 'minutes.' }),
  key('apim.governance.scheduler', 'task_cleanup_interval_minutes', 'integer', { default: 30, notes: 'minutes.' }),

  // [qpid.heartbeat]
  key('qpid.heartbeat', 'delay', 'integer', { default: 0, notes: 'seconds between pings; sample 1.' }),
  key('qpid.heartbeat', 'timeoutFactor', 'float', { default: 2.0, notes: 'sample uses key timeout_factor = 3.0.' }),

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

  // [oauth]
  key('oauth', 'additional_params_from_error_url', 'boolean', { default: false }),
  key('oauth', 'allowed_scopes', 'string[]', { notes: 'Scopes accepted without validation.' }),
  key('oauth', 'timestamp_skew', 'integer', { default: 0, notes: 'seconds.' }),
  key('oauth', 'extensions.token_generator', 'string', { notes: 'default: built-in class' }),
  key('oauth', 'extensions.token_context_generator', 'string', { notes: 'default: built-in class' }),
  key('oauth', 'extensions.token_context_claim_retriever', 'string', { notes: 'default: built-in class' }),
  key('oauth', 'extensions.token_context_dialect_uri', 'string', { notes: 'default: claim dialect URI' }),

  // [oauth.token_validation]
  key('oauth.token_validation', 'app_access_token_validity', 'integer', { default: 3600, notes: 'seconds.' }),
  key('oauth.token_validation', 'user_access_token_validity', 'integer', { default: 3600, notes: 'seconds.' }),
  key('oauth.token_validation', 'refresh_token_validity', 'integer', { default: 86400, notes: 'seconds.' }),

  // [oauth.token_cleanup]
  key('oauth.token_cleanup', 'enable', 'boolean', { default: true }),
  key('oauth.token_cleanup', 'retain_access_tokens_for_auditing', 'boolean', { default: true, notes: 'Moves old invalid tokens to an audit table.' }),

  // [oauth.oidc]
  key('oauth.oidc', 'extensions.id_token_builder', 'string', { notes: 'Class name.' }),
  key('oauth.oidc', 'extensions.claim_callback_handler', 'string', { notes: 'Class name.' }),
  key('oauth.oidc', 'extensions.user_info_claim_retriever', 'string', { notes: 'Class name.' }),
  key('oauth.oidc', 'user_info.response_type', 'string', { default: 'json', allowed: ['json', 'jwt'] }),
  key('oauth.oidc', 'token_validation.id_token_validity', 'integer', { default: 3600, notes: 'seconds.' }),
  key('oauth.oidc', 'id_token.issuer', 'string', { notes: 'default: token endpoint URL' }),
  key('oauth.oidc', 'id_token.redirect_error_page', 'boolean', { default: true }),
  key('oauth.oidc', 'claims.enable_oidc_dialect', 'boolean', { default: false }),
  key('oauth.oidc', 'claims.enable_unmapped_user_attributes', 'boolean', { default: false }),

  // [oauth.grant_type.authorization_code]
  key('oauth.grant_type.authorization_code', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.authorization_code', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.password]
  key('oauth.grant_type.password', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.password', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.refresh_token]
  key('oauth.grant_type.refresh_token', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.refresh_token', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.client_credentials]
  key('oauth.grant_type.client_credentials', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.client_credentials', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.client_credentials', 'allow_refresh_tokens', 'boolean', { default: false }),
  key('oauth.grant_type.client_credentials', 'allow_id_token', 'boolean', { default: false }),
  // [oauth.grant_type.saml_bearer]
  key('oauth.grant_type.saml_bearer', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.saml_bearer', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.iwa_ntlm]
  key('oauth.grant_type.iwa_ntlm', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.iwa_ntlm', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.iwa_ntlm', 'grant_validator', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.jwt_bearer]
  key('oauth.grant_type.jwt_bearer', 'enable', 'boolean', { default: true }),
  key('oauth.grant_type.jwt_bearer', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.jwt_bearer', 'grant_validator', 'string', { notes: 'default: built-in class' }),
  // [oauth.grant_type.kerberos]
  key('oauth.grant_type.kerberos', 'enable', 'boolean', { default: false }),
  key('oauth.grant_type.kerberos', 'grant_handler', 'string', { notes: 'default: built-in class' }),
  key('oauth.grant_type.kerberos', 'grant_validator', 'string', { notes: 'default: built-in class' }),

  // [session_data.persistence]
  key('session_data.persistence', 'persistence_pool_size', 'integer', { default: 0, notes: '0 persists synchronously; above 0 asynchronously with that many threads.' }),

  // [oauth.token_generation]
  key('oauth.token_generation', 'retry_count_on_persistence_failures', 'integer', { default: 5, notes: 'Retries on a key constraint violation while storing the access token.' }),

  // [user_store.properties]
  key('user_store.properties', 'TenantManager', 'string', { required: true, notes: 'A JDBC tenant manager or a hybrid directory tenant manager class.' }),
  key('user_store.properties', 'MaxUserNameListLength', 'integer', { notes: '0 lists all users.' }),
  key('user_store.properties', 'ConnectionURL', 'string', { notes: 'Directory server URL.' }),
  key('user_store.properties', 'ConnectionName', 'string', { notes: 'DN used to connect; needs read and search rights.' }),
  key('user_store.properties', 'ConnectionPassword', 'string', { secret: true }),
  key('user_store.properties', 'DisplayNameAttribute', 'string', { notes: 'Optional.' }),
  key('user_store.properties', 'PasswordHashMethod', 'string', { allowed: ['SHA', 'SHA-1', 'SHA-256', 'MD5', 'PLAIN_TEXT'] }),
  key('user_store.properties', 'UserNameListFilter', 'string', { notes: 'Filter listing users.' }),
  key('user_store.properties', 'UserEntryObjectClass', 'string', { notes: 'Object class of user entries.' }),
  key('user_store.properties', 'UserSearchBase', 'string', { notes: 'DN under which users are stored.' }),
  key('user_store.properties', 'UserNameSearchFilter', 'string'),
  key('user_store.properties', 'UserNameAttribute', 'string', { notes: 'Unique user attribute.' }),
  key('user_store.properties', 'PasswordJavaScriptRegEx', 'string', { notes: 'Front-end validation pattern.' }),
  key('user_store.properties', 'UsernameJavaScriptRegEx', 'string', { notes: 'Front-end validation pattern.' }),
  key('user_store.properties', 'UsernameJavaRegEx', 'string', { notes: 'default: a pattern of length 5 to 30' }),
  key('user_store.properties', 'PasswordJavaRegEx', 'string', { notes: 'default: a pattern of length 5 to 30' }),
  key('user_store.properties', 'RolenameJavaRegEx', 'string', { notes: 'default: a pattern of length 5 to 30' }),
  key('user_store.properties', 'ReadGroups', 'boolean', { notes: 'false makes group settings optional.' }),
  key('user_store.properties', 'WriteGroups', 'boolean'),
  key('user_store.properties', 'GroupSearchBase', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupNameListFilter', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupEntryObjectClass', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupNameSearchFilter', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'GroupNameAttribute', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'MembershipAttribute', 'string', { notes: 'Group lookup.' }),
  key('user_store.properties', 'MembershipAttributeRange', 'integer', { default: 1500 }),
  key('user_store.properties', 'UserRoleCacheEnabled', 'boolean', { default: true, notes: 'also written UserRolesCacheEnabled.' }),
  key('user_store.properties', 'UserRolesCacheEnabled', 'boolean', { default: true, notes: 'alternate spelling of UserRoleCacheEnabled.' }),
  key('user_store.properties', 'UserDNPattern', 'string', { notes: 'Speeds user search.' }),
  key('user_store.properties', 'ReplaceEscapeCharactersAtUserLogin', 'string'),
  key('user_store.properties', 'MultiTenantRealmConfigBuilder', 'string'),
  key('user_store.properties', 'LDAPConnectionTimeout', 'duration', { notes: 'catalog type string, ms.' }),
  key('user_store.properties', 'ConnectionRetryDelay', 'duration', { notes: 'sample key (named next to LDAPConnectionTimeout), ms.' }),
  key('user_store.properties', 'SCIMEnabled', 'boolean', { default: false }),
  key('user_store.properties', 'kdcEnabled', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('user_store.properties', 'ConnectionPoolingEnabled', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('user_store.properties', 'ReadTimeout', 'integer', { notes: 'catalog type string; ms, zero or less waits forever (so not a duration: -1 is valid).' }),
  key('user_store.properties', 'RetryAttempts', 'integer', { notes: 'catalog type string.' }),
  key('user_store.properties', 'BackLinksEnabled', 'boolean', { default: false, notes: 'catalog type string, takes true/false' }),
  key('user_store.properties', 'UserCoreCacheTimeOut', 'integer', { default: 5, notes: 'catalog type string; unit not stated.' }),
  key('user_store.properties', 'CaseInsensitiveUsername', 'string'),
  key('user_store.properties', 'AnonymousBind', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'IsBulkImportSupported', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'EmptyRolesAllowed', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'StartTLSEnabled', 'string', { notes: 'sample key; type not stated.' }),
  key('user_store.properties', 'defaultRealmName', 'string', { notes: 'sample key; type not stated.' }),

  // [custom_keystore.<name>]
  key('custom_keystore.<name>', 'file_name', 'string', { notes: 'File in the security directory.' }),
  key('custom_keystore.<name>', 'type', 'string'),
  key('custom_keystore.<name>', 'password', 'string', { secret: true }),
  key('custom_keystore.<name>', 'alias', 'string'),
  key('custom_keystore.<name>', 'key_password', 'string', { secret: true }),

  // [http_access_log]
  key('http_access_log', 'enabled', 'boolean', { default: true, notes: 'sample value; catalog gives no type or default.' }),
  key('http_access_log', 'useLogger', 'boolean', { default: false, notes: 'Writes access records to the main log.' }),

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

  // [apim.mediator_config.oauth.trust_store]
  key('apim.mediator_config.oauth.trust_store', 'location', 'string', { notes: 'OAuth token endpoint trust store.' }),
  key('apim.mediator_config.oauth.trust_store', 'type', 'string'),
  key('apim.mediator_config.oauth.trust_store', 'password', 'string', { secret: true }),

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

  // [apim.basic_authenticator]
  key('apim.basic_authenticator', 'init_idle_capacity', 'integer', { default: 20, notes: 'Client pool for calls to internal services.' }),
  key('apim.basic_authenticator', 'max_idle', 'integer', { default: 50 }),
  key('apim.basic_authenticator', 'max_active', 'integer', { default: 100 }),
  key('apim.basic_authenticator', 'max_wait_millis', 'duration', { default: 30000, notes: 'catalog type integer ms.' }),

  // [apim.synapse_artifact_generator.thread_pool]
  key('apim.synapse_artifact_generator.thread_pool', 'core_pool_size', 'integer', { default: 4, notes: 'Applies from 4.0 update level 368.' }),
  key('apim.synapse_artifact_generator.thread_pool', 'max_pool_size', 'integer', { default: 4, notes: 'Equal to core makes a fixed pool.' }),
  key('apim.synapse_artifact_generator.thread_pool', 'keep_alive_time_ms', 'duration', { default: 60000, notes: 'catalog type integer ms.' }),
  key('apim.synapse_artifact_generator.thread_pool', 'queue_capacity', 'integer', { default: 50, notes: 'When full and at max, the caller runs the task (back-pressure).' }),
] as const;
