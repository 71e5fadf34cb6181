import type { Config } from '../config.js';
import type { DoorConfig, TargetRules } from './front-door.js';

/** [passthru_http] and Sluice's own keys there: the pass-through engine's tuning. */
export interface PassthruView {
  readonly socketTimeoutMs: number;
  readonly workerPoolCore: number;
  readonly workerPoolMax: number;
  /** -1: unbounded. */
  readonly workerPoolQueueLength: number;
  readonly ioBufferSize: number;
  readonly maxConnectionsPerHostPort: number;
  readonly userAgentPreserve: boolean;
  readonly serverPreserve: boolean;
  readonly headersPreserve: readonly string[];
  readonly disableConnectionKeepAlive: boolean;
  /** -1: no limit. */
  readonly maxOpenConnections: number;
  readonly forceXmlValidation: boolean;
  readonly forceJsonValidation: boolean;
  readonly ioThreads: number;
  readonly gracefulStopMs: number;
  readonly maxHeaderSize: number;
  readonly allowSlowFallback: boolean;
  readonly connectTimeoutMs: number;
  /** resourceLimits.maxYoungGenerationSizeMb of each io thread. */
  readonly ioThreadYoungGenerationMb: number;
  /** The front door's limits, rules and timeouts (transport/front-door/). */
  readonly door: DoorConfig;
  readonly maxBearerTokenBytes: number;
  /** Cap of a request body read whole (GraphQL, validation, content-aware in sequences), bytes: 413 above. */
  readonly maxBufferedRequestBodySize: number;
  /** Cap of a backend response held whole for an out sequence, bytes: 502 above. */
  readonly maxBufferedResponseBodySize: number;
}

export function passthruView(config: Config): PassthruView {
  return {
    socketTimeoutMs: config.get('passthru_http.http.socket.timeout'),
    workerPoolCore: config.get('passthru_http.worker_pool_size_core'),
    workerPoolMax: config.get('passthru_http.worker_pool_size_max'),
    workerPoolQueueLength: config.get('passthru_http.worker_pool_queue_length'),
    ioBufferSize: config.get('passthru_http.io_buffer_size'),
    maxConnectionsPerHostPort: config.get('passthru_http.http.max.connection.per.host.port'),
    userAgentPreserve: config.get('passthru_http.http.user.agent.preserve'),
    serverPreserve: config.get('passthru_http.http.server.preserve'),
    headersPreserve: config.get('passthru_http.http.headers.preserve').map((h) => h.toLowerCase()),
    disableConnectionKeepAlive: config.get('passthru_http.disable_connection_keepalive'),
    maxOpenConnections: config.get('passthru_http.max_open_connections'),
    forceXmlValidation: config.get('passthru_http.force_xml_validation'),
    forceJsonValidation: config.get('passthru_http.force_json_validation'),
    ioThreads: config.get('passthru_http.io_threads_per_reactor'),
    gracefulStopMs: config.get('passthru_http.graceful_stop_timeout'),
    maxHeaderSize: config.get('passthru_http.max_header_size'),
    allowSlowFallback: config.get('passthru_http.allow_slow_fallback'),
    connectTimeoutMs: config.get('passthru_http.backend_connect_timeout'),
    ioThreadYoungGenerationMb: config.get('passthru_http.io_thread_young_generation_mb'),
    maxBearerTokenBytes: config.get('passthru_http.max_bearer_token_bytes'),
    door: {
      maxTargetBytes: config.get('passthru_http.max_request_target_bytes'),
      maxHeaderBytes: config.get('passthru_http.max_request_header_bytes'),
      maxHeaderCount: config.get('passthru_http.max_request_header_count'),
      maxPipelined: config.get('passthru_http.max_pipelined_requests'),
      maxQueuedBytes: Math.max(65536, config.get('passthru_http.io_buffer_size') * 4),
      target: {
        escapedSlash: config.get('passthru_http.path_escaped_slash_action') as TargetRules['escapedSlash'],
        backslash: config.get('passthru_http.path_backslash_action') as TargetRules['backslash'],
        pathParameters: config.get('passthru_http.path_parameters_action') as TargetRules['pathParameters'],
        mergeSlashes: config.get('passthru_http.path_merge_slashes'),
      },
      timeouts: {
        headerMs: config.get('passthru_http.client_header_timeout'),
        bodyMs: config.get('passthru_http.client_body_timeout'),
        keepAliveMs: config.get('passthru_http.client_keepalive_timeout'),
        sendMs: config.get('passthru_http.client_send_timeout'),
      },
    },
    maxBufferedRequestBodySize: config.get('passthru_http.max_buffered_request_body_size'),
    maxBufferedResponseBodySize: config.get('passthru_http.max_buffered_response_body_size'),
  };
}

export interface ListenerView {
  readonly enabled: boolean;
  readonly port: number;
  readonly bindAddress: string;
}

/** [transport.passthru_http] / [transport.passthru_https] listener keys. */
export function passthruListeners(config: Config): { readonly http: ListenerView; readonly https: ListenerView } {
  return {
    http: {
      enabled: config.get('transport.passthru_http.listener.enable'),
      port: config.get('transport.passthru_http.listener.parameters.port'),
      bindAddress: config.get('transport.passthru_http.listener.bind-address') ?? '0.0.0.0',
    },
    https: {
      enabled: config.get('transport.passthru_https.listener.enable'),
      port: config.get('transport.passthru_https.listener.parameters.port'),
      bindAddress: config.get('transport.passthru_https.listener.bind-address') ?? '0.0.0.0',
    },
  };
}

export interface ProxyProfileView {
  /** Host patterns: exact names, `*` for all, `*.example.com` for sub-domains. */
  readonly targetHosts: readonly string[];
  readonly proxyHost: string;
  readonly proxyPort: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly bypassHosts: readonly string[];
}

export interface SenderProxyView {
  readonly enabled: boolean;
  readonly warnOnHttp500: readonly string[];
  /** sender.http.proxyHost/proxyPort/nonProxyHosts. */
  readonly proxy: ProxyProfileView | undefined;
  /** Option 1, proxyProfiles (XML text), as written; parsed by the sender's proxy rules. */
  readonly proxyProfilesXml: string | undefined;
  /** Option 2, [[transport.http.proxy_profile]] / [[transport.http.secured_proxy_profile]]. */
  readonly profiles: readonly ProxyProfileView[];
}

function splitHosts(v: string | undefined): string[] {
  return (v ?? '').split(/[|,]/).map((s) => s.trim()).filter(Boolean);
}

function profileItems(items: readonly Record<string, unknown>[]): ProxyProfileView[] {
  return items.map((i) => ({
    targetHosts: (i['target_hosts'] as string[] | undefined) ?? ['*'],
    proxyHost: String(i['proxy_host'] ?? ''),
    proxyPort: Number(i['proxy_port'] ?? 0),
    username: i['proxy_username'] as string | undefined,
    password: i['proxy_password'] as string | undefined,
    bypassHosts: (i['bypass_hosts'] as string[] | undefined) ?? [],
  })).filter((p) => p.proxyHost && p.proxyPort > 0);
}

/** Sender keys of [transport.passthru_http] (plain backends) and [transport.passthru_https] (TLS backends). */
export function senderProxies(config: Config): { readonly http: SenderProxyView; readonly https: SenderProxyView } {
  const httpHost = config.get('transport.passthru_http.sender.http.proxyHost');
  const httpPort = config.get('transport.passthru_http.sender.http.proxyPort');
  const httpsHost = config.get('transport.passthru_https.sender.http.proxyHost');
  const httpsPort = config.get('transport.passthru_https.sender.http.proxyPort');
  const warn = (v: string | undefined): string[] => (v === undefined || v === 'false' ? [] : v === 'true' ? ['*'] : splitHosts(v));
  return {
    http: {
      enabled: config.get('transport.passthru_http.sender.enable'),
      warnOnHttp500: warn(config.get('transport.passthru_http.sender.warnOnHTTP500')),
      proxy: httpHost && httpPort ? { targetHosts: ['*'], proxyHost: httpHost, proxyPort: httpPort, username: undefined, password: undefined,
        bypassHosts: splitHosts(config.get('transport.passthru_http.sender.http.nonProxyHosts')) } : undefined,
      proxyProfilesXml: config.get('transport.passthru_http.sender.parameters.proxyProfiles'),
      profiles: profileItems(config.items('transport.http.proxy_profile')),
    },
    https: {
      enabled: config.get('transport.passthru_https.sender.enable'),
      warnOnHttp500: warn(config.get('transport.passthru_https.sender.warnOnHTTP500')),
      proxy: httpsHost && httpsPort ? { targetHosts: ['*'], proxyHost: httpsHost, proxyPort: httpsPort, username: undefined, password: undefined,
        bypassHosts: splitHosts(config.get('transport.passthru_https.sender.http.nonProxyHosts')) } : undefined,
      proxyProfilesXml: config.get('transport.passthru_https.sender.parameters.proxyProfiles'),
      profiles: profileItems(config.items('transport.http.secured_proxy_profile')),
    },
  };
}
