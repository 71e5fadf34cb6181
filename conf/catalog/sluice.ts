import { key } from './types.js';

/**
 * Keys that are Sluice's own: not in the seed catalog, documented in docs/configuration.md. They sit in the
 * catalog's sections where they belong (a pass-through key under [passthru_http]) or in sections of their own.
 */
export const SLUICE_KEYS = [
  // [passthru_http]
  key('passthru_http', 'io_threads_per_reactor', 'integer', { computedDefault: 'cpu_cores', min: 1, sluice: true,
    notes: 'uWebSockets.js event loops (worker threads) sharing the pass-through ports; default: number of cores' }),
  key('passthru_http', 'graceful_stop_timeout', 'duration', { default: 30000, sluice: true,
    notes: 'on SIGTERM, how long calls in flight may take to finish before the process exits' }),
  key('passthru_http', 'max_header_size', 'integer', { default: 8192, min: 1024, sluice: true,
    notes: 'largest request head (request line and headers) accepted, bytes' }),
  key('passthru_http', 'allow_slow_fallback', 'boolean', { default: false, sluice: true,
    notes: 'start even when the uWebSockets.js native binary cannot load (pure-JS fallback, far slower)' }),
  key('passthru_http', 'backend_connect_timeout', 'duration', { default: 30000, sluice: true,
    notes: 'time allowed to open a backend connection (101508 when exceeded)' }),
  key('passthru_http', 'io_thread_young_generation_mb', 'integer', { default: 12, min: 3, sluice: true,
    notes: 'V8 young generation of each io thread, MiB: the bound of its short-lived garbage (RSS under load); larger scavenges less often' }),
  // Secure by default: what must be held whole is capped (docs/security.md); an API file may set its own.
  key('passthru_http', 'max_buffered_request_body_size', 'integer', { default: 10485760, min: 1024, sluice: true,
    notes: 'largest request body the gateway reads whole (GraphQL, body validation, content-aware in sequences), bytes; 413 above it. Streamed bodies have no cap' }),
  key('passthru_http', 'max_buffered_response_body_size', 'integer', { default: 10485760, min: 1024, sluice: true,
    notes: 'largest backend response an out sequence holds whole, bytes; 502 (101510) above it. Streamed responses have no cap' }),
  // [mediation]
  key('mediation', 'respond_reflects_request_headers', 'boolean', { default: false, sluice: true,
    notes: '<respond/> in a request flow answers with every request header, as the reference system does; false: only the headers the sequence set' }),
  // [sluice.graphql]
  key('sluice.graphql', 'max_tokens', 'integer', { default: 15000, min: 1, sluice: true,
    notes: 'most lexical tokens a GraphQL query may hold (graphql parse maxTokens); 900422 above it' }),
  key('sluice.graphql', 'max_depth', 'integer', { default: 100, min: 1, sluice: true,
    notes: 'deepest nesting of braces, brackets and parentheses a GraphQL query may have; 900422 above it' }),
  // [apim.cache.gateway_token]
  key('apim.cache.gateway_token', 'max_entries', 'integer', { default: 100000, min: 1, sluice: true,
    notes: 'bound of the gateway token cache, per io thread; the oldest entries go first' }),
  // [apim.key_manager]
  key('apim.key_manager', 'jwks_url', 'string', { sluice: true,
    notes: 'where the gateway fetches the signing keys; default: the service_url origin + /oauth2/jwks (in-process in the default role)' }),
  key('apim.key_manager', 'introspection_url', 'string', { sluice: true,
    notes: 'key validation of opaque tokens; default: the service_url origin + /oauth2/introspect' }),
  key('apim.key_manager', 'jwks_refresh_interval', 'duration', { default: 300000, sluice: true,
    notes: 'how often a gateway that fetches the JWKS over the network fetches it again (an unknown kid also triggers a fetch)' }),
  // [apim.redis_config]
  key('apim.redis_config', 'enable', 'boolean', { default: false, sluice: true,
    notes: 'share throttle counters, decisions and revocations between gateway nodes through Redis' }),
  key('apim.redis_config', 'url', 'string', { sluice: true, notes: 'redis://[user:password@]host:port[/db]; overrides host and port' }),
  key('apim.redis_config', 'host', 'string', { default: '127.0.0.1', sluice: true }),
  key('apim.redis_config', 'port', 'integer', { default: 6379, sluice: true }),
  key('apim.redis_config', 'username', 'string', { sluice: true }),
  key('apim.redis_config', 'password', 'string', { secret: true, sluice: true }),
  key('apim.redis_config', 'key_prefix', 'string', { default: 'sluice:', sluice: true }),
  key('apim.redis_config', 'sync_interval', 'duration', { default: 100, sluice: true,
    notes: 'how often local throttle counts are flushed to Redis and global counts read back' }),
  // [apim.throttling]: Sluice's throttling keys (docs/throttling.md)
  key('apim.throttling', 'trusted_proxies', 'string[]', { default: [], sluice: true,
    notes: 'addresses, CIDRs or a-b ranges of proxies whose X-Forwarded-For is believed when throttling and blocking by IP' }),
  key('apim.throttling', 'counter_table_size', 'integer', { default: 65536, min: 1024, sluice: true,
    notes: 'slots of the shared throttle counter table (one per active throttle key); rounded up to a power of two' }),
  key('apim.throttling', 'rate_limit_headers', 'boolean', { default: true, sluice: true,
    notes: 'add X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset to throttled calls and calls that pass' }),
  // [sluice.servlet]: the servlet transport (key manager, admin API) on [transport.http(s).properties] ports
  key('sluice.servlet', 'bind_address', 'string', { default: '0.0.0.0', sluice: true,
    notes: 'address the servlet HTTP and HTTPS ports listen on' }),
  key('sluice.servlet', 'max_body_size', 'integer', { default: 1048576, min: 1024, sluice: true,
    notes: 'largest request body the servlet ports accept, bytes (413 above it)' }),
  key('sluice.servlet', 'headers_timeout', 'duration', { default: 20000, sluice: true,
    notes: 'time a client has to send the request head (the servlet connector\'s connectionTimeout)' }),
  key('sluice.servlet', 'graceful_stop_timeout', 'duration', { default: 10000, sluice: true,
    notes: 'on stop, how long requests in flight on the servlet ports may take to finish' }),
  // [oauth.token_cleanup]
  key('oauth.token_cleanup', 'interval', 'duration', { default: 3600000, sluice: true,
    notes: 'how often expired and invalid tokens are removed (moved to the audit table when retained)' }),
  // [sluice.keymanager]
  key('sluice.keymanager', 'applications_rescan_interval', 'duration', { default: 5000, sluice: true,
    notes: 'declarative applications: periodic rescan beside the file watcher' }),
  // [sluice.control_plane]: the admin REST API, the event hub and gateway notification (docs/operations.md)
  key('sluice.control_plane', 'resident_key_manager', 'boolean', { default: true, sluice: true,
    notes: 'api-publisher / api-devportal nodes also run the key manager (token, revoke, JWKS, introspection), as the reference system\'s control-plane profile does; false: a separate api-key-manager node on the same apim_db' }),
  // [sluice.event_hub]: how gateway-worker nodes follow the control plane
  key('sluice.event_hub', 'long_poll_timeout', 'duration', { default: 25000, sluice: true,
    notes: 'how long the control plane holds an events request open when there is nothing new' }),
  key('sluice.event_hub', 'poll_interval', 'duration', { default: 30000, sluice: true,
    notes: 'with [apim.redis_config] enabled, events arrive by Redis pub/sub and are also polled this often as a safety net' }),
  key('sluice.event_hub', 'retention', 'duration', { default: 3600000, sluice: true,
    notes: 'how long the control plane keeps events; a gateway further behind does a full resynchronisation' }),
  // [sluice.metrics]
  key('sluice.metrics', 'enable', 'boolean', { default: true, sluice: true,
    notes: 'Prometheus text at GET /metrics on the servlet ports; io threads aggregate per-call metrics only when true' }),
  // [sluice.tracing]
  key('sluice.tracing', 'service_name', 'string', { default: 'sluice-gateway', sluice: true,
    notes: 'localEndpoint.serviceName of the spans sent to Zipkin or logged' }),
  key('sluice.tracing', 'batch_interval', 'duration', { default: 1000, sluice: true,
    notes: 'spans are sent to the Zipkin collector at most this often (and when 500 are waiting)' }),
  // [sluice.websocket]: WebSocket APIs (docs/websocket.md)
  key('sluice.websocket', 'max_message_size', 'integer', { default: 16777216, min: 1024, sluice: true,
    notes: 'largest WebSocket message, bytes, either way; a client that sends a larger one is disconnected (1006)' }),
  key('sluice.websocket', 'idle_timeout', 'duration', { default: 120000, sluice: true,
    notes: 'a client connection with no traffic for this long is closed; the gateway pings idle clients first. 0 disables; otherwise 8s to 960s' }),
  key('sluice.websocket', 'high_water_mark', 'integer', { default: 1048576, min: 16384, sluice: true,
    notes: 'bytes waiting for a slow client above which the backend is paused until they drain to half' }),
  key('sluice.websocket', 'max_buffered_bytes', 'integer', { default: 33554432, min: 65536, sluice: true,
    notes: 'bytes waiting for a slow backend above which the client is closed with 1013 (uWebSockets.js cannot pause a client)' }),
  key('sluice.websocket', 'close_timeout', 'duration', { default: 5000, sluice: true,
    notes: 'how long the gateway waits for a backend to answer a close frame before dropping the connection' }),
  key('sluice.websocket', 'query_token', 'boolean', { default: true, sluice: true,
    notes: 'accept the access token as the access_token query parameter of the handshake (browsers cannot set headers)' }),
  key('sluice.websocket', 'require_subscription', 'boolean', { default: false, sluice: true,
    notes: 'true: a WebSocket handshake needs a subscription of the application to the API (900908 without); false: any valid token may connect, a blocked or inactive subscription is still refused' }),
  key('sluice.websocket', 'throttle_action', 'string', { default: 'close', allowed: ['close', 'drop'], sluice: true,
    notes: 'a message over a throttling limit: close the connection with 4429, or drop the message' }),
  // [sluice.log]
  key('sluice.log', 'level', 'string', { default: 'info', allowed: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], sluice: true }),
  key('sluice.log', 'format', 'string', { default: 'text', allowed: ['text', 'json'], sluice: true }),
  key('sluice.log', 'console', 'boolean', { default: true, sluice: true, notes: 'also write the log to stdout' }),
  key('sluice.log', 'file', 'string', { default: 'repository/logs/sluice.log', sluice: true,
    notes: 'relative to the home; the log also goes to stdout' }),
] as const;
