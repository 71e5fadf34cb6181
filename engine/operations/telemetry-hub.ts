import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { accessLogView, analyticsView, metricsView, oauthView, tracingView, type AccessLogView, type AnalyticsView, type TracingView } from '../../conf/typed-config.js';
import type { TelemetryBatch, TelemetrySettings } from '../gateway/telemetry/types.js';
import { readCalls } from '../gateway/telemetry/call-columns.js';
import { gatewayLines } from './access-log-batch.js';
import { LineBytes } from './line-bytes.js';
import { AccessLog, type ServletRecord } from './access-log.js';
import { AnalyticsLog } from './analytics.js';
import { NodeMetrics } from './metrics.js';
import { SENSITIVE_HEADERS } from '../../transport/sensitive-fields.js';
import type { SpanReporter } from './span-reporter.js';
import { reportersFor, spansOf } from './tracing.js';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The main-thread half of the telemetry: receives the io threads' batches and the servlet's requests and
 * hands them to the access log, analytics, the span reporters and the metrics. Files are written
 * asynchronously (file-sink.ts) and spans sent by undici: nothing here blocks, and nothing runs on an io
 * thread. `configure` is called at start and on every reload (SIGHUP).
 */
export class TelemetryHub {
  readonly metrics = new NodeMetrics();
  private accessLog: AccessLog | null = null;
  private analytics: AnalyticsLog | null = null;
  private reporters: SpanReporter[] = [];
  private accessView: AccessLogView | null = null;
  private analyticsViewNow: AnalyticsView | null = null;
  private tracingViewNow: TracingView | null = null;
  private serviceName = 'sluice-gateway';
  private current: TelemetrySettings | null = null;
  /** The access log's combined lines of a batch are written here, batch after batch (access-log-batch.ts). */
  private readonly lines = new LineBytes(160 * 1024);
  metricsEnabled = true;

  constructor(private readonly log: Logger) {}

  /** Applies the configuration's telemetry keys; returns what the io threads must do. */
  configure(config: Config): TelemetrySettings {
    const access = accessLogView(config);
    if (!same(access, this.accessView)) {
      void this.accessLog?.close();
      this.accessLog = access.enabled ? new AccessLog(access, this.log) : null;
      this.accessView = access;
    }
    const analytics = analyticsView(config);
    if (!same(analytics, this.analyticsViewNow)) {
      void this.analytics?.close();
      this.analytics = null;
      if (analytics.enabled) {
        if (analytics.type.toLowerCase() === 'log') this.analytics = new AnalyticsLog(analytics);
        else this.log.warn({ type: analytics.type }, '[apim.analytics] type is not supported by Sluice (only "log"): no analytics events are written');
      }
      this.analyticsViewNow = analytics;
    }
    const tracing = tracingView(config);
    if (!same(tracing, this.tracingViewNow)) {
      for (const r of this.reporters) void r.close();
      this.reporters = reportersFor(tracing, this.log);
      this.tracingViewNow = tracing;
      this.serviceName = tracing.serviceName;
      if (tracing.remote.enabled) this.log.info({ collector: `${tracing.remote.host}:${tracing.remote.port}`, name: tracing.remote.name }, 'tracing: spans go to a Zipkin v2 collector');
      if (tracing.otlp.enabled) this.log.info({ collector: tracing.otlp.endpoint, headers: Object.keys(tracing.otlp.headers) }, 'tracing: spans go to an OTLP/HTTP collector');
      if (tracing.log.enabled) this.log.info({ file: tracing.log.file }, 'tracing: spans are logged');
    }
    this.metricsEnabled = metricsView(config).enabled;
    const tracingOn = this.reporters.length > 0;
    this.current = {
      metrics: this.metricsEnabled,
      records: this.accessLog !== null || this.analytics !== null || tracingOn,
      headers: this.analytics !== null && analytics.sendHeaders,
      tracing: tracingOn,
      sensitiveHeaders: [...new Set([...SENSITIVE_HEADERS, oauthView(config).authHeader.toLowerCase()])],
      flushIntervalMs: 200,
    };
    return this.current;
  }

  settings(): TelemetrySettings {
    if (!this.current) throw new Error('telemetry not configured');
    return this.current;
  }

  onBatch(b: TelemetryBatch): void {
    try {
      if (b.metrics) this.metrics.addDelta(b.metrics);
      if (b.gauges) this.metrics.setThreadGauges(b.thread, b.gauges);
      if (b.calls === null) return;
      let access = this.accessLog;
      const analytics = this.analytics;
      const reporters = this.reporters;
      // The combined access log reads the columns itself; the records are built only for what needs them.
      if (access?.takesLines) {
        // The lines are copied into the file's blocks (file-sink.ts): the writer is used again next batch.
        access.writeLines(gatewayLines(b.calls, this.lines));
        access = null;
      }
      if (access === null && analytics === null && reporters.length === 0) return;
      for (const c of readCalls(b.calls, b.thread)) {
        if (access) access.gateway(c);
        if (analytics) analytics.write(c);
        if (reporters.length && c.trace) {
          const spans = spansOf(c, this.serviceName);
          if (spans.length) for (const r of reporters) r.add(spans);
        }
      }
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'telemetry batch could not be handled');
    }
  }

  onServletRequest(r: ServletRecord): void {
    if (this.metricsEnabled) this.metrics.servletRequest(r);
    this.accessLog?.servlet(r);
  }

  /** Follows an external rotation of the log files (SIGUSR2 / SIGHUP). */
  reopen(): void {
    this.accessLog?.reopen();
    this.analytics?.reopen();
  }

  async close(): Promise<void> {
    await Promise.all([this.accessLog?.close(), this.analytics?.close(), ...this.reporters.map((r) => r.close())]);
    this.accessLog = null;
    this.analytics = null;
    this.reporters = [];
  }
}
