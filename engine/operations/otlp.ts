import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Logger } from 'pino';
import { SLUICE_VERSION } from '../../conf/version.js';
import type { SpanReporter, ZipkinSpan } from './span-reporter.js';

export interface OtlpSettings {
  /** OTLP/HTTP traces URL, `http://collector:4318/v1/traces`. */
  readonly endpoint: string;
  /** Sent with every export (an API key, a tenant header). */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly serviceName: string;
  readonly batchIntervalMs: number;
}

/** µs since the epoch -> OpenTelemetry's [seconds, nanoseconds]. */
function hr(us: number): HrTime {
  const s = Math.floor(us / 1e6);
  return [s, Math.round((us - s * 1e6) * 1000)];
}

/** OpenTelemetry's semantic conventions for the tags Sluice's spans carry; sluice.* tags pass as they are. */
const ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
  'http.method': 'http.request.method',
  'http.path': 'url.path',
  'http.status_code': 'http.response.status_code',
  'http.url': 'url.full',
};

/**
 * One span as the OTLP exporter reads it (sdk-trace's ReadableSpan), from the span Sluice builds for Zipkin
 * (tracing.ts spansOf): the same ids, times, names and tags, so both collectors see the same trace. Zipkin
 * allows 64-bit trace ids (a caller's B3 header); OTLP wants 128 bits: they are padded with zeros on the left,
 * as the B3 specification says to read them.
 */
function readable(z: ZipkinSpan, resource: ReadableSpan['resource'], scope: ReadableSpan['instrumentationScope']): ReadableSpan {
  const traceId = z.traceId.padStart(32, '0');
  const attributes: Attributes = {};
  let error: string | undefined;
  for (const [k, v] of Object.entries(z.tags)) {
    if (k === 'error') { error = v; continue; }
    const name = ATTRIBUTE_NAMES[k] ?? k;
    attributes[name] = name === 'http.response.status_code' ? Number(v) : v;
  }
  const remote = z.remoteEndpoint;
  if (remote) {
    const ip = remote.ipv4 ?? remote.ipv6;
    if (z.kind === 'SERVER' && ip) attributes['client.address'] = ip;
    if (z.kind === 'CLIENT') {
      if (remote.serviceName) attributes['server.address'] = remote.serviceName;
      if (remote.port !== undefined) attributes['server.port'] = remote.port;
    }
  }
  const start = hr(z.timestamp);
  const end = hr(z.timestamp + z.duration);
  const context = { traceId, spanId: z.id, traceFlags: TraceFlags.SAMPLED };
  return {
    name: z.name,
    kind: z.kind === 'SERVER' ? SpanKind.SERVER : SpanKind.CLIENT,
    spanContext: () => context,
    ...(z.parentId ? { parentSpanContext: { traceId, spanId: z.parentId, traceFlags: TraceFlags.SAMPLED, isRemote: z.kind === 'SERVER' } } : {}),
    startTime: start,
    endTime: end,
    duration: hr(z.duration),
    status: error !== undefined ? { code: SpanStatusCode.ERROR, message: error } : { code: SpanStatusCode.UNSET },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * Spans to an OpenTelemetry collector over OTLP/HTTP (JSON), with OpenTelemetry's own exporter and batch
 * processor: at most 10 000 spans queued (more are dropped), batches of 500 sent every batch_interval. It runs
 * on the main thread, like the Zipkin reporter; a failing collector costs dropped spans and one warning a minute.
 */
export class OtlpReporter implements SpanReporter {
  private readonly processor: BatchSpanProcessor;
  private readonly resource: ReadableSpan['resource'];
  private readonly scope = { name: 'sluice', version: SLUICE_VERSION };
  private lastWarn = 0;
  private closed = false;
  /** Spans the collector acknowledged, and spans lost to failed exports. */
  sent = 0;
  failed = 0;

  constructor(readonly settings: OtlpSettings, private readonly log: Logger) {
    this.resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': SLUICE_VERSION });
    const inner = new OTLPTraceExporter({ url: settings.endpoint, headers: { ...settings.headers }, timeoutMillis: settings.timeoutMs });
    const exporter: SpanExporter = {
      export: (spans, done) => inner.export(spans, (result) => {
        if (result.code === 0) this.sent += spans.length;
        else this.onFailure(spans.length, result.error);
        done(result);
      }),
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush(),
    };
    this.processor = new BatchSpanProcessor(exporter, {
      maxQueueSize: 10_000, maxExportBatchSize: 500, scheduledDelayMillis: settings.batchIntervalMs, exportTimeoutMillis: settings.timeoutMs,
    });
  }

  private onFailure(n: number, err: Error | undefined): void {
    this.failed += n;
    const now = Date.now();
    if (now - this.lastWarn < 60_000) return;
    this.lastWarn = now;
    this.log.warn({ collector: this.settings.endpoint, err: err?.message, dropped: this.failed }, 'spans could not be sent to the OTLP collector');
  }

  add(spans: readonly ZipkinSpan[]): void {
    if (this.closed) return;
    for (const s of spans) this.processor.onEnd(readable(s, this.resource, this.scope));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Sends what is queued (bounded by the export timeout), then stops.
    await this.processor.shutdown().catch(() => {});
  }
}
