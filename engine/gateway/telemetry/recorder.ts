import type { Logger } from 'pino';
import { isThrottleCode } from '../../../errors/catalogue.js';
import { subscribeCalls, unsubscribeCalls } from '../../kernel/call-events.js';
import type { MessageContext } from '../message-context.js';
import type { SenderPools } from '../../routing/backend-target.js';
import type { WorkerPool } from '../worker-pool.js';
import { traceFor } from './trace.js';
import { CallColumnsWriter, NumCol, StrCol } from './call-columns.js';
import type { ApiDefinition } from '../../registry/types.js';
import {
  LATENCY_BUCKETS, TELEMETRY_OFF,
  type HistogramDelta, type MetricsDelta, type TelemetryBatch, type TelemetrySettings, type ThreadGauges,
} from './types.js';
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';

/** What the recorder reads from its io thread. */
export interface RecorderHost {
  readonly index: number;
  readonly pools: SenderPools;
  readonly workerPool: WorkerPool;
  readonly inFlightCount: number;
}

/**
 * Calls per batch posted to the main thread (or fewer, after flushIntervalMs). Under load the main thread
 * wakes once per batch with cold caches, and that wake-up, not the lines, was most of its share: per call
 * it spent 1.9 µs with batches of 256, 0.8-0.9 µs with 1 024 and 0.76 µs with 4 096 (per-thread CPU from
 * /proc, same run, docs/performance.md). At 30 000 calls/s a batch of 1 024 fills in about 35 ms.
 */
const MAX_BATCH = 1024;
/** The API's columns a definition gives (name, version, context, type), and the caller's six (application to application tier). */
const API_COLUMNS = StrCol.API_TYPE - StrCol.API_NAME + 1;
const CALLER_COLUMNS = StrCol.APPLICATION_TIER - StrCol.APPLICATION + 1;
const METRICS_INTERVAL_MS = 1000;
/** Fault kinds in MetricsDelta.faults. */
export const FaultKind = { THROTTLED: 0, REJECTED: 1, OTHER: 2 } as const;

class Hist {
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;
  observe(seconds: number): void {
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }
  delta(api: string, version: string): HistogramDelta {
    return { api, version, buckets: Array.from(this.buckets), sum: this.sum, count: this.count };
  }
}

/** What one API (one deployed definition object) counted since the last report. */
class ApiStats {
  /** Calls without an error code, by status (sparse). */
  readonly statuses: number[] = [];
  readonly latency = new Hist();
  readonly backend = new Hist();
  /** Calls with an error code: `${code}:${kind}:${status}` -> count (a string only for calls that failed). */
  readonly faults = new Map<string, number>();
  reqBytes = 0;
  respBytes = 0;
  constructor(readonly api: string, readonly version: string) {}
}


/**
 * The io-thread half of the telemetry (types.ts): subscribed to the call channel only while some
 * telemetry is on, it never writes a file or waits on anything; it counts and posts.
 */
export class CallRecorder {
  private settings: TelemetrySettings = TELEMETRY_OFF;
  private subscribed = false;
  private readonly calls = new CallColumnsWriter(MAX_BATCH);
  /** By API definition object (identity: no key string built per call); null for calls no API matched. */
  private readonly stats = new Map<ApiDefinition | null, ApiStats>();
  private readonly transport = new Map<string, number>();
  private metricsDirty = false;
  private recordTimer: NodeJS.Timeout | null = null;
  private metricsTimer: NodeJS.Timeout | null = null;
  private sensitive = new Set<string>();
  private readonly origin = performance.timeOrigin;
  /** This thread's timer delay, sampled by libuv every 20 ms while metrics are on; reset at each report. */
  private loopDelay: IntervalHistogram | null = null;
  private loopUse: EventLoopUtilization = performance.eventLoopUtilization();

  constructor(private readonly host: RecorderHost, private readonly post: (batch: TelemetryBatch) => void, private readonly log: Logger) {}

  get current(): TelemetrySettings {
    return this.settings;
  }

  /** New settings (start, SIGHUP): subscribes or unsubscribes; what was gathered under the old ones is sent. */
  apply(settings: TelemetrySettings): void {
    this.flush(false);
    this.settings = settings;
    this.sensitive = new Set(settings.sensitiveHeaders.map((h) => h.toLowerCase()));
    const want = settings.metrics || settings.records;
    if (settings.metrics && this.loopDelay === null) {
      this.loopDelay = monitorEventLoopDelay({ resolution: 20 });
      this.loopDelay.enable();
      this.loopUse = performance.eventLoopUtilization();
    } else if (!settings.metrics && this.loopDelay !== null) {
      this.loopDelay.disable();
      this.loopDelay = null;
    }
    if (want && !this.subscribed) { subscribeCalls(this.onCall); this.subscribed = true; }
    if (!want && this.subscribed) { unsubscribeCalls(this.onCall); this.subscribed = false; }
  }

  private readonly onCall = (message: unknown): void => {
    const ctx = message as MessageContext;
    try {
      const durationMs = performance.now() - ctx.startedAt;
      const status = ctx.respStatus || (ctx.aborted ? 499 : 0);
      if (this.settings.metrics) this.count(ctx, status, durationMs);
      if (this.settings.records) {
        this.write(ctx, status, durationMs);
        if (this.calls.full) this.flushRecords();
        else this.recordTimer ??= setTimeout(() => { this.recordTimer = null; this.flushRecords(); }, this.settings.flushIntervalMs);
      }
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'telemetry of a call failed');
    }
  };

  private count(ctx: MessageContext, status: number, durationMs: number): void {
    const def = ctx.api?.def ?? null;
    let st = this.stats.get(def);
    if (st === undefined) { st = new ApiStats(def?.name ?? '', def?.version ?? ''); this.stats.set(def, st); }
    st.latency.observe(durationMs / 1000);
    st.reqBytes += ctx.reqBytes;
    st.respBytes += ctx.respBytes;
    if (ctx.backendLatencyMs >= 0) st.backend.observe(ctx.backendLatencyMs / 1000);
    const code = ctx.errorCode;
    if (code === 0) {
      st.statuses[status] = (st.statuses[status] ?? 0) + 1;
    } else {
      const kind = isThrottleCode(code) ? FaultKind.THROTTLED : ctx.backendStartedAt === 0 && ctx.errorBase === 0 ? FaultKind.REJECTED : FaultKind.OTHER;
      const fk = `${code}:${kind}:${status}`;
      st.faults.set(fk, (st.faults.get(fk) ?? 0) + 1);
      if (ctx.errorBase !== 0) {
        const tk = `${code}:${ctx.errorBase}:${ctx.errorState}`;
        this.transport.set(tk, (this.transport.get(tk) ?? 0) + 1);
      }
    }
    if (!this.metricsDirty) {
      this.metricsDirty = true;
      this.metricsTimer ??= setTimeout(() => { this.metricsTimer = null; this.flush(true); }, METRICS_INTERVAL_MS);
    }
  }

  private headers(flat: readonly string[] | null, lower: boolean): string[] | null {
    if (flat === null) return null;
    const out: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const name = flat[i]!;
      out.push(name, this.sensitive.has(lower ? name : name.toLowerCase()) ? '********' : flat[i + 1]!);
    }
    return out;
  }

  /** The call's row in the batch: no record object, no tuple (call-columns.ts). */
  private write(ctx: MessageContext, status: number, durationMs: number): void {
    const def = ctx.api?.def;
    const auth = ctx.auth;
    const w = this.calls;
    w.next();
    w.num(NumCol.STARTED_AT, this.origin + ctx.startedAt);
    w.num(NumCol.DURATION_MS, durationMs);
    w.num(NumCol.SECURE, ctx.secure ? 1 : 0);
    w.num(NumCol.STATUS, status);
    w.num(NumCol.BYTES, ctx.respBytes);
    w.num(NumCol.BACKEND_LATENCY_MS, ctx.backendLatencyMs);
    w.num(NumCol.BACKEND_STARTED_AT, ctx.backendStartedAt > 0 ? this.origin + ctx.backendStartedAt : -1);
    w.num(NumCol.ERROR_CODE, ctx.errorCode);
    w.str(StrCol.METHOD, ctx.method);
    w.str(StrCol.PATH, ctx.path);
    w.str(StrCol.QUERY, ctx.query);
    w.str(StrCol.CLIENT_IP, ctx.clientIp);
    w.str(StrCol.USER_AGENT, ctx.header('user-agent') ?? '');
    w.str(StrCol.REFERER, ctx.header('referer') ?? '');
    // An API definition and a caller (AuthContext) are not changed once made: the same object, the same columns.
    if (!w.same(StrCol.API_NAME, API_COLUMNS, def ?? null)) {
      w.str(StrCol.API_NAME, def ? def.name : null);
      w.str(StrCol.API_VERSION, def ? def.version : null);
      w.str(StrCol.API_CONTEXT, def ? def.context : null);
      w.str(StrCol.API_TYPE, def ? def.type : null);
    }
    w.str(StrCol.API_RESOURCE, def ? ctx.resource?.def.uriTemplate ?? '' : null);
    if (!w.same(StrCol.APPLICATION, CALLER_COLUMNS, auth)) {
      w.str(StrCol.APPLICATION, auth ? auth.application : null);
      w.str(StrCol.OWNER, auth ? auth.subscriber : null);
      w.str(StrCol.KEY_TYPE, auth ? auth.keyType : null);
      w.str(StrCol.USER, auth ? auth.user : null);
      w.str(StrCol.TIER, auth ? auth.tier : null);
      w.str(StrCol.APPLICATION_TIER, auth ? auth.applicationTier : null);
    }
    w.str(StrCol.BACKEND_URL, ctx.target?.url ?? '');
    w.str(StrCol.ERROR_MESSAGE, ctx.errorMessage);
    const st = this.settings;
    if (st.headers || st.tracing) {
      let trace = ctx.trace;
      if (st.tracing && trace === null) {
        // The call ended before the trace phase (a fault): it still gets its span.
        trace = traceFor(ctx);
        ctx.trace = trace;
      }
      w.extra([
        st.headers ? this.headers(ctx.reqHeaders, true) : null,
        st.headers ? this.headers(ctx.respHeaders, false) : null,
        st.tracing ? trace : null,
      ]);
    }
  }

  private flushRecords(): void {
    if (this.recordTimer) { clearTimeout(this.recordTimer); this.recordTimer = null; }
    const calls = this.calls.take();
    if (calls === null) return;
    this.post({ thread: this.host.index, calls, metrics: null, gauges: null });
  }

  private takeMetrics(): MetricsDelta | null {
    if (!this.metricsDirty) return null;
    this.metricsDirty = false;
    const requests: [string, string, number, number][] = [];
    const bytes: [string, string, number, number][] = [];
    const latency: HistogramDelta[] = [];
    const backendLatency: HistogramDelta[] = [];
    const faults: [string, string, number, number, number, number][] = [];
    // Merged by name and version: a redeployment makes new definition objects for the same API.
    for (const st of this.stats.values()) {
      st.statuses.forEach((n, status) => { if (n) requests.push([st.api, st.version, status, n]); });
      if (st.reqBytes || st.respBytes) bytes.push([st.api, st.version, st.reqBytes, st.respBytes]);
      if (st.latency.count) latency.push(st.latency.delta(st.api, st.version));
      if (st.backend.count) backendLatency.push(st.backend.delta(st.api, st.version));
      for (const [k, n] of st.faults) {
        const [code, kind, status] = k.split(':');
        faults.push([st.api, st.version, Number(code), Number(kind), Number(status), n]);
      }
    }
    const transportErrors = [...this.transport].map(([k, n]) => { const [c, b, state] = k.split(':'); return [Number(c), Number(b), Number(state), n] as const; });
    this.stats.clear();
    this.transport.clear();
    return { requests, bytes, latency, backendLatency, transportErrors, faults };
  }

  gauges(): ThreadGauges {
    const wp = this.host.workerPool;
    return {
      inFlight: this.host.inFlightCount,
      workerPool: { active: wp.active, waiting: wp.waiting, core: wp.settings.core, max: wp.settings.max, rejected: wp.rejected, busyShare: wp.busyShare() },
      pools: this.host.pools.stats(),
      eventLoop: this.eventLoop(),
    };
  }

  /** Utilisation and timer delay since the previous report (and resets the delay histogram for the next). */
  private eventLoop(): ThreadGauges['eventLoop'] {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, this.loopUse).utilization;
    this.loopUse = now;
    const h = this.loopDelay;
    if (h === null || h.count === 0) return { utilization, lagMeanSeconds: 0, lagP99Seconds: 0, lagMaxSeconds: 0 };
    // The histogram measures how late the 20 ms timer fired (the resolution itself is subtracted by Node).
    const out = { utilization, lagMeanSeconds: h.mean / 1e9, lagP99Seconds: h.percentile(99) / 1e9, lagMaxSeconds: h.max / 1e9 };
    h.reset();
    return out;
  }

  /** Sends what is waiting: records, metric deltas and (with `gauges`) the thread's gauges. */
  flush(gauges = true): void {
    this.flushRecords();
    if (this.metricsTimer) { clearTimeout(this.metricsTimer); this.metricsTimer = null; }
    const metrics = this.takeMetrics();
    const g = gauges && this.settings.metrics ? this.gauges() : null;
    if (metrics !== null || g !== null) this.post({ thread: this.host.index, calls: null, metrics, gauges: g });
  }

  stop(): void {
    this.flush(false);
    this.loopDelay?.disable();
    this.loopDelay = null;
    if (this.subscribed) { unsubscribeCalls(this.onCall); this.subscribed = false; }
  }
}
