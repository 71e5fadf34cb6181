import { Agent, request } from 'undici';
import type { Logger } from 'pino';
import type { TracingView } from '../../conf/views/operations.js';
import type { CallRecord } from '../gateway/telemetry/types.js';
import { FileSink } from './file-sink.js';
import { OtlpReporter } from './otlp.js';
import type { SpanReporter, ZipkinSpan } from './span-reporter.js';

/**
 * Spans of gateway calls ([apim.open_tracer], [sluice.tracing.otlp]). Sluice builds Zipkin JSON v2 spans
 * itself and POSTs them in batches to http://<remote_tracer.properties.hostname>:<port>/api/v2/spans with
 * undici, writes them, one JSON span per line, to <home>/repository/logs/tracer.log with log_tracer, and
 * hands the same spans to OpenTelemetry's OTLP/HTTP exporter (otlp.ts) when [sluice.tracing.otlp] is on.
 */

const us = (ms: number): number => Math.round(ms * 1000);

function ipEndpoint(ip: string): { ipv4?: string; ipv6?: string } {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return { ipv4: ip };
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m) return { ipv4: m[1]! };
  return ip.includes(':') ? { ipv6: ip } : {};
}

/** The gateway span (SERVER) and, when the backend was called, the backend span (CLIENT) of one call. */
export function spansOf(r: CallRecord, serviceName: string): ZipkinSpan[] {
  const t = r.trace;
  if (t === null || !t.sampled) return [];
  const api = r.api;
  const tags: Record<string, string> = {
    'http.method': r.method,
    'http.path': r.path,
    'http.status_code': String(r.status),
  };
  if (api) {
    tags['sluice.api'] = api.name;
    tags['sluice.api_version'] = api.version;
    tags['sluice.api_context'] = api.context;
    if (api.resource) tags['sluice.resource'] = api.resource;
  }
  if (r.auth) {
    tags['sluice.application'] = r.auth.application;
    if (r.auth.user) tags['sluice.user'] = r.auth.user;
  }
  if (r.errorCode !== 0) {
    tags['sluice.error_code'] = String(r.errorCode);
    tags['error'] = r.errorMessage || String(r.errorCode);
  } else if (r.status >= 500) {
    tags['error'] = String(r.status);
  }
  const name = `${r.method} ${api ? `${api.context}/${api.version}${api.resource === '/*' ? '' : api.resource}` : r.path}`.toLowerCase();
  const server: ZipkinSpan = {
    traceId: t.traceId,
    id: t.spanId,
    ...(t.parentId ? { parentId: t.parentId } : {}),
    name,
    kind: 'SERVER',
    timestamp: us(r.startedAt),
    duration: Math.max(1, us(r.durationMs)),
    localEndpoint: { serviceName },
    remoteEndpoint: ipEndpoint(r.clientIp),
    tags,
  };
  if (r.backendStartedAt < 0) return [server];
  let remote: ZipkinSpan['remoteEndpoint'] = {};
  let url = '';
  try {
    const u = new URL(r.backendUrl);
    url = `${u.protocol}//${u.host}${u.pathname}`;
    remote = { serviceName: u.hostname, ...ipEndpoint(u.hostname), ...(u.port ? { port: Number(u.port) } : {}) };
  } catch { /* no URL: no remote endpoint */ }
  const end = r.startedAt + r.durationMs;
  const backendTags: Record<string, string> = { 'http.method': r.method, 'http.url': url };
  if (r.backendLatencyMs >= 0) {
    backendTags['http.status_code'] = String(r.status);
    backendTags['sluice.time_to_headers_ms'] = r.backendLatencyMs.toFixed(3);
  } else if (r.errorCode !== 0) {
    backendTags['error'] = r.errorMessage || String(r.errorCode);
    backendTags['sluice.error_code'] = String(r.errorCode);
  }
  const client: ZipkinSpan = {
    traceId: t.traceId,
    id: t.backendSpanId,
    parentId: t.spanId,
    name: `${r.method} backend`.toLowerCase(),
    kind: 'CLIENT',
    timestamp: us(r.backendStartedAt),
    duration: Math.max(1, us(end - r.backendStartedAt)),
    localEndpoint: { serviceName },
    remoteEndpoint: remote,
    tags: backendTags,
  };
  return [server, client];
}

const MAX_QUEUE = 10_000;
const MAX_BATCH = 500;

/** Batches spans and POSTs them to a Zipkin v2 collector; a failing collector costs dropped spans and one warning a minute. */
export class ZipkinReporter implements SpanReporter {
  readonly url: string;
  private queue: ZipkinSpan[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private dropped = 0;
  private lastWarn = 0;
  private readonly agent = new Agent({ connections: 2, keepAliveTimeout: 10_000 });
  private closed = false;
  sent = 0;

  constructor(host: string, port: number, private readonly intervalMs: number, private readonly log: Logger) {
    this.url = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}/api/v2/spans`;
  }

  add(spans: readonly ZipkinSpan[]): void {
    if (this.closed) return;
    for (const s of spans) {
      if (this.queue.length >= MAX_QUEUE) { this.dropped++; continue; }
      this.queue.push(s);
    }
    if (this.queue.length >= MAX_BATCH) this.kick();
    else this.timer ??= setTimeout(() => { this.timer = null; this.kick(); }, this.intervalMs);
  }

  private kick(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    if (this.sending || this.queue.length === 0) return;
    this.sending = this.send().finally(() => {
      this.sending = null;
      if (this.queue.length > 0) {
        if (this.queue.length >= MAX_BATCH || this.closed) this.kick();
        else this.timer ??= setTimeout(() => { this.timer = null; this.kick(); }, this.intervalMs);
      }
    });
  }

  private async send(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      const res = await request(this.url, {
        method: 'POST', dispatcher: this.agent, body: JSON.stringify(batch),
        headers: { 'content-type': 'application/json' }, headersTimeout: 5000, bodyTimeout: 5000,
      });
      await res.body.dump();
      if (res.statusCode >= 300) throw new Error(`the collector answered ${res.statusCode}`);
      this.sent += batch.length;
    } catch (err) {
      this.dropped += batch.length;
      const now = Date.now();
      if (now - this.lastWarn > 60_000) {
        this.lastWarn = now;
        this.log.warn({ collector: this.url, err: (err as Error).message, dropped: this.dropped }, 'spans could not be sent to the tracing collector');
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.kick();
    let late = false;
    const deadline = new Promise<void>((r) => { const t = setTimeout(() => { late = true; r(); }, 3000); t.unref(); });
    while (this.sending && !late) await Promise.race([this.sending, deadline]);
    await this.agent.close().catch(() => {});
  }
}

/** log_tracer: one JSON span per line in <home>/repository/logs/tracer.log. */
export class LogTracer implements SpanReporter {
  private readonly sink: FileSink;
  constructor(file: string) { this.sink = new FileSink(file); }
  add(spans: readonly ZipkinSpan[]): void {
    for (const s of spans) this.sink.write(JSON.stringify(s) + '\n');
  }
  close(): Promise<void> { return this.sink.close(); }
}

/** The reporters [apim.open_tracer] and [sluice.tracing.otlp] ask for (any of them may be on). */
export function reportersFor(view: TracingView, log: Logger): SpanReporter[] {
  const out: SpanReporter[] = [];
  if (view.remote.enabled) out.push(new ZipkinReporter(view.remote.host, view.remote.port, view.batchIntervalMs, log));
  if (view.otlp.enabled) {
    out.push(new OtlpReporter({ endpoint: view.otlp.endpoint, headers: view.otlp.headers, timeoutMs: view.otlp.timeoutMs, serviceName: view.serviceName, batchIntervalMs: view.batchIntervalMs }, log));
  }
  if (view.log.enabled) out.push(new LogTracer(view.log.file));
  return out;
}
