import type { TraceRecord } from '../../kernel/call.js';

/**
 * Telemetry between an io thread and the main thread (docs/operations.md, "How telemetry leaves the io
 * threads"). Each io thread subscribes to the call channel only when something listens, turns each
 * finished call into a compact record (access log, analytics, tracing) and/or adds it to local metric
 * aggregates, and posts batches to the main thread: records every `flushIntervalMs` (or when 256 wait),
 * metric deltas and gauges once a second and whenever the main thread asks (a /metrics scrape). The main
 * thread writes the files, sends the spans and keeps the Prometheus registry. Plain data only.
 */

/** Shared state key (engine/gateway/shared-state.ts) carrying TelemetrySettings to every io thread. */
export const TELEMETRY_STATE_KEY = 'sluice.telemetry';
/** Shared state key carrying the log level (SIGHUP reload). */
export const LOG_LEVEL_STATE_KEY = 'sluice.log.level';

export interface TelemetrySettings {
  /** Aggregate per-call metrics ([sluice.metrics] enable). */
  readonly metrics: boolean;
  /** Build one record per call: access log, analytics or tracing is on. */
  readonly records: boolean;
  /** Copy request and response headers into the record ([apim.analytics.properties] send_headers). */
  readonly headers: boolean;
  /** Trace ids and propagation headers per call ([apim.open_tracer]). */
  readonly tracing: boolean;
  /** Header names (lower case) whose values are masked when headers are copied. */
  readonly sensitiveHeaders: readonly string[];
  readonly flushIntervalMs: number;
}

export const TELEMETRY_OFF: TelemetrySettings = {
  metrics: false, records: false, headers: false, tracing: false, sensitiveHeaders: [], flushIntervalMs: 200,
};

/** Latency histogram bounds, seconds (Prometheus `le`). */
export const LATENCY_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];


/** One finished gateway call. No token, secret or credential header value is ever put in it. */
export interface CallRecord {
  /** ms since the epoch, fractional. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly method: string;
  readonly path: string;
  /** Query string as received (without `?`); the main thread redacts credential parameters before writing it. */
  readonly query: string;
  readonly clientIp: string;
  readonly secure: boolean;
  /** Status sent to the client; 499 when the client left before any answer. */
  readonly status: number;
  readonly bytes: number;
  readonly userAgent: string;
  readonly referer: string;
  readonly api: { readonly name: string; readonly version: string; readonly context: string; readonly type: string; readonly resource: string } | null;
  readonly auth: {
    readonly application: string; readonly owner: string; readonly keyType: string; readonly user: string;
    readonly tier: string; readonly applicationTier: string;
  } | null;
  /** ms from dispatch to the backend's response head; -1 when the backend was not called or did not answer. */
  readonly backendLatencyMs: number;
  /** ms since the epoch when the backend request started, -1 when it did not. */
  readonly backendStartedAt: number;
  /** Endpoint URL (as configured, without query) and host of the backend, '' when none. */
  readonly backendUrl: string;
  readonly errorCode: number;
  readonly errorMessage: string;
  /** Flat [name, value, ...] (values masked for sensitive names); null unless headers are asked for. */
  readonly requestHeaders: readonly string[] | null;
  readonly responseHeaders: readonly string[] | null;
  readonly trace: TraceRecord | null;
  readonly thread: number;
}

/** Histogram data of one label set, buckets not cumulative (one slot per bound plus +Inf). */
export interface HistogramDelta {
  readonly api: string;
  readonly version: string;
  readonly buckets: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** What a thread counted since its last report. */
export interface MetricsDelta {
  /** [api, version, status, count]: calls that ended without an error code (those with one are in `faults`). */
  readonly requests: readonly (readonly [string, string, number, number])[];
  /** [api, version, request body bytes received, response body bytes sent] */
  readonly bytes: readonly (readonly [string, string, number, number])[];
  readonly latency: readonly HistogramDelta[];
  readonly backendLatency: readonly HistogramDelta[];
  /** [code, base, protocol state, count] */
  readonly transportErrors: readonly (readonly [number, number, number, number])[];
  /** [api, version, fault code, kind (0 throttled, 1 rejected before any backend, 2 other), status, count]: calls that ended with an error code. */
  readonly faults: readonly (readonly [string, string, number, number, number, number])[];
}

export interface BackendPoolGauge {
  readonly key: string;
  /** `http(s)://host:port`: the label; pools to one origin through other proxies or trust are summed under it. */
  readonly origin: string;
  readonly open: number;
  readonly idle: number;
  readonly busy: number;
  readonly connecting: number;
  readonly waiting: number;
}

/** A thread's state right now. */
export interface ThreadGauges {
  readonly inFlight: number;
  readonly workerPool: { readonly active: number; readonly waiting: number; readonly core: number; readonly max: number; readonly rejected: number; readonly busyShare: number };
  readonly pools: readonly BackendPoolGauge[];
  /**
   * The io thread's event loop since its previous report: the share of time it was busy (0-1) and the delay of
   * its timers (seconds), as the main thread's nodejs_eventloop_* metrics measure the main thread.
   */
  readonly eventLoop: { readonly utilization: number; readonly lagMeanSeconds: number; readonly lagP99Seconds: number; readonly lagMaxSeconds: number };
}

export interface TelemetryBatch {
  readonly thread: number;
  /** Finished calls, in columns (call-columns.ts); null when the batch only carries metrics or gauges. */
  readonly calls: EncodedCalls | null;
  readonly metrics: MetricsDelta | null;
  readonly gauges: ThreadGauges | null;
}

/** What only some settings ask for (headers, tracing), per call; null in the batch when none asked. */
export type CallExtras = readonly [requestHeaders: readonly string[] | null, responseHeaders: readonly string[] | null, trace: TraceRecord | null];

/** Finished calls encoded in columns for the trip to the main thread (call-columns.ts writes and reads them). */
export interface EncodedCalls {
  readonly count: number;
  readonly numbers: Float64Array;
  readonly refs: Int32Array;
  readonly strings: readonly string[];
  readonly extras: readonly CallExtras[] | null;
  /** The shared segment the columns are views of (column-segments.ts); -1: they are the batch's own. */
  readonly segment: number;
  /** The segments' state words, to give the segment back (releaseColumns); null with the batch's own columns. */
  readonly states: Int32Array | null;
}
