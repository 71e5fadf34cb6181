import path from 'node:path';
import type { Config } from '../config.js';

/**
 * What an operator watches a node with: the health check, the access log, analytics, metrics and tracing
 * (docs/operations.md). Every key here can change live (SIGHUP, engine/operations/reload.ts).
 */

/** [carbon_health_check] and its two built-in checkers. */
export interface HealthCheckView {
  readonly enabled: boolean;
  readonly dataSource: {
    readonly enabled: boolean;
    readonly order: number;
    /** A pool busier than this share (percent) of its maximum fails the check. */
    readonly poolUsageLimitPercentage: number;
    /** Data source names to check (`jdbc/WSO2AM_DB`, `apim_db`); empty: all. */
    readonly monitored: readonly string[];
  };
  readonly userStore: {
    readonly enabled: boolean;
    readonly order: number;
    /** User store domains; empty: all (Sluice has one, PRIMARY). */
    readonly monitored: readonly string[];
  };
  /** [[health_checker]] entries: custom checkers (reported as not available: Sluice loads no Java classes). */
  readonly custom: readonly { readonly name: string; readonly order: number }[];
}

export function healthCheckView(config: Config): HealthCheckView {
  const ds = 'carbon_health_check.health_checker.data_source_health_checker';
  const us = 'carbon_health_check.health_checker.super_tenant_health_checker';
  return {
    enabled: config.get('carbon_health_check.enable'),
    dataSource: {
      enabled: config.get(`${ds}.enable`),
      order: config.get(`${ds}.order`),
      poolUsageLimitPercentage: config.get(`${ds}.properties.pool_usage_limit_percentage`),
      monitored: config.get(`${ds}.properties.monitored.datasources`) ?? [],
    },
    userStore: {
      enabled: config.get(`${us}.enable`),
      order: config.get(`${us}.order`),
      monitored: config.get(`${us}.properties.monitored.user.stores`) ?? [],
    },
    custom: config.items('health_checker').map((i) => ({ name: String(i['name'] ?? ''), order: Number(i['order'] ?? 100) })),
  };
}

/** [http_access_log]: one line per call, to <home>/repository/logs/http_access.log or the main log. */
export interface AccessLogView {
  readonly enabled: boolean;
  readonly useLogger: boolean;
  /** `combined` (Apache combined plus four fields) or `json` (one object per call). */
  readonly format: 'combined' | 'json';
  readonly file: string;
}

export function accessLogView(config: Config): AccessLogView {
  return {
    enabled: config.get('http_access_log.enabled'),
    useLogger: config.get('http_access_log.useLogger'),
    format: config.get('http_access_log.format') === 'json' ? 'json' : 'combined',
    file: path.join(config.home.logsDir, 'http_access.log'),
  };
}

/** [apim.analytics]: one JSON event per completed API call (type "log" writes <home>/repository/logs/analytics.log). */
export interface AnalyticsView {
  readonly enabled: boolean;
  /** `log`, or a third-party provider name (not supported: reported at start, nothing sent). */
  readonly type: string;
  readonly sendHeaders: boolean;
  readonly buildResponseMessage: boolean;
  readonly file: string;
}

export function analyticsView(config: Config): AnalyticsView {
  return {
    enabled: config.get('apim.analytics.enable'),
    type: (config.get('apim.analytics.type') ?? 'log').trim(),
    sendHeaders: config.get('apim.analytics.properties.send_headers'),
    buildResponseMessage: config.get('apim.analytics.properties.build_response_message'),
    file: path.join(config.home.logsDir, 'analytics.log'),
  };
}

/** [apim.open_tracer] and [sluice.tracing]: spans per gateway call, to Zipkin (JSON v2), an OTLP collector or a log file. */
export interface TracingView {
  readonly remote: { readonly enabled: boolean; readonly name: string; readonly host: string; readonly port: number };
  readonly log: { readonly enabled: boolean; readonly file: string };
  readonly otlp: { readonly enabled: boolean; readonly endpoint: string; readonly headers: Readonly<Record<string, string>>; readonly timeoutMs: number };
  readonly serviceName: string;
  readonly batchIntervalMs: number;
}

export function tracingView(config: Config): TracingView {
  return {
    remote: {
      enabled: config.get('apim.open_tracer.remote_tracer.enable'),
      name: config.get('apim.open_tracer.remote_tracer.name') ?? 'zipkin',
      host: config.get('apim.open_tracer.remote_tracer.properties.hostname'),
      port: config.get('apim.open_tracer.remote_tracer.properties.port'),
    },
    log: { enabled: config.get('apim.open_tracer.log_tracer.enable'), file: path.join(config.home.logsDir, 'tracer.log') },
    otlp: {
      enabled: config.get('sluice.tracing.otlp.enable'),
      endpoint: config.get('sluice.tracing.otlp.endpoint'),
      headers: headerMap(config.get('sluice.tracing.otlp.headers') ?? []),
      timeoutMs: config.get('sluice.tracing.otlp.timeout'),
    },
    serviceName: config.get('sluice.tracing.service_name'),
    batchIntervalMs: config.get('sluice.tracing.batch_interval'),
  };
}

/** `["Name: value", ...]` -> { Name: value } (the cross-key rules have checked the form). */
function headerMap(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(':');
    if (i > 0) out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

/** [sluice.metrics]: the Prometheus endpoint. */
export interface MetricsView {
  readonly enabled: boolean;
}

export function metricsView(config: Config): MetricsView {
  return { enabled: config.get('sluice.metrics.enable') };
}
