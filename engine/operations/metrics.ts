import { Counter, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { PROTOCOL_STATE_NAMES } from '../../transport/protocol-state.js';
import { SLUICE_VERSION } from '../../conf/version.js';
import { FaultKind } from '../gateway/telemetry/recorder.js';
import { LATENCY_BUCKETS, type HistogramDelta, type MetricsDelta, type ThreadGauges } from '../gateway/telemetry/types.js';
import type { ServletRecord } from './access-log.js';

type Labels = Record<string, string | number>;
export interface Sample { readonly labels: Labels; readonly value: number; readonly metricName?: string }

/**
 * A metric whose samples are computed at scrape time (gauges from the io threads' last report, counters
 * kept elsewhere, histograms merged from the threads' deltas). prom-client calls `get()`.
 */
class ComputedMetric {
  readonly aggregator = 'sum';
  constructor(readonly name: string, readonly help: string, readonly type: 'gauge' | 'counter' | 'histogram', private readonly collect: () => Sample[] | Promise<Sample[]>) {}
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    let values: Sample[];
    try { values = await this.collect(); } catch { values = []; }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A histogram fed with the threads' bucket counts (prom-client's Histogram takes only single observations). */
class MergedHistogram {
  private readonly series = new Map<string, { labels: Labels; buckets: Float64Array; sum: number; count: number }>();
  readonly metric: ComputedMetric;

  constructor(name: string, help: string) {
    this.metric = new ComputedMetric(name, help, 'histogram', () => this.samples(name));
  }

  add(d: HistogramDelta): void {
    const api = d.api || '-';
    const key = `${api}\u0000${d.version}`;
    let s = this.series.get(key);
    if (!s) { s = { labels: { api, version: d.version || '-' }, buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 }; this.series.set(key, s); }
    for (let i = 0; i < d.buckets.length && i < s.buckets.length; i++) s.buckets[i]! += d.buckets[i]!;
    s.sum += d.sum;
    s.count += d.count;
  }

  private samples(name: string): Sample[] {
    const out: Sample[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
        cumulative += s.buckets[i]!;
        out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: LATENCY_BUCKETS[i]! }, value: cumulative });
      }
      out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
    }
    return out;
  }
}

/** Fault kinds as the `kind` label says them (MetricsDelta.faults). */
const FAULT_KIND_NAMES: Record<number, string> = { [FaultKind.THROTTLED]: 'throttled', [FaultKind.REJECTED]: 'rejected', [FaultKind.OTHER]: 'other' };

/**
 * prom-client's default metrics that are gauges named with `_total`, which Prometheus' naming rules keep for
 * counters. Each is the sum of a gauge prom-client also exports by type (nodejs_active_handles{type}...), so
 * it is dropped: `sum(nodejs_active_handles)` is the same number.
 */
const DEFAULT_GAUGES_DROPPED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The node's Prometheus registry (GET /metrics, docs/operations.md lists every series and how they sum):
 * gateway calls from the io threads' reports, servlet requests, the io threads' event loops, and the gauges
 * other parts register (store pool, gateways, event hub). Names follow Prometheus' rules: counters end in
 * `_total`, gauges never do, units in the name (`_seconds`, `_bytes`), the standard process_* and nodejs_*
 * metrics unprefixed so stock dashboards find them. Labels carry no internal key (a backend is its origin).
 * One registry per node, not prom-client's global one, so that several nodes can share a process.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'api' | 'version' | 'status' | 'code'>;
  private readonly requestBytes: Counter<'api' | 'version'>;
  private readonly responseBytes: Counter<'api' | 'version'>;
  private readonly latency = new MergedHistogram('sluice_gateway_request_duration_seconds', 'Gateway calls: time from the request to the end of the response, by API');
  private readonly backendLatency = new MergedHistogram('sluice_gateway_backend_duration_seconds', 'Gateway calls: time from dispatch to the backend\'s response head, by API');
  private readonly transportErrors: Counter<'code' | 'base' | 'state'>;
  private readonly faults: Counter<'api' | 'version' | 'code' | 'kind'>;
  private readonly servlet: Counter<'method' | 'status'>;
  private readonly threads = new Map<number, ThreadGauges>();

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'sluice_gateway_requests_total', help: 'Gateway calls, each counted once, by API, version, status sent to the client (499: the client left first) and error code ("" when none)', labelNames: ['api', 'version', 'status', 'code'], registers });
    this.requestBytes = new Counter({ name: 'sluice_gateway_request_bytes_total', help: 'Request body bytes received from clients, by API', labelNames: ['api', 'version'], registers });
    this.responseBytes = new Counter({ name: 'sluice_gateway_response_bytes_total', help: 'Response body bytes sent to clients, by API', labelNames: ['api', 'version'], registers });
    this.transportErrors = new Counter({ name: 'sluice_gateway_transport_errors_total', help: 'Backend transport errors by error code, base code and protocol state (seed 000); a subset of the faults of kind other', labelNames: ['code', 'base', 'state'], registers });
    this.faults = new Counter({ name: 'sluice_gateway_faults_total', help: 'Gateway calls that ended with an error code, each counted once, by API, code and kind (throttled, rejected before any backend was called, other)', labelNames: ['api', 'version', 'code', 'kind'], registers });
    this.servlet = new Counter({ name: 'sluice_servlet_requests_total', help: 'Requests on the servlet ports (token, admin, health, metrics) by method and status', labelNames: ['method', 'status'], registers });
    this.register(this.latency.metric);
    this.register(this.backendLatency.metric);
    this.gauge('sluice_build_info', 'Always 1: the versions of Sluice, Node.js and llhttp (the HTTP/1.1 parser of the front door and the sender) this node runs', () => [
      { labels: { version: SLUICE_VERSION, node: process.versions.node, llhttp: process.versions.llhttp ?? 'unknown' }, value: 1 },
    ]);
    const perThread = (pick: (g: ThreadGauges) => number) => (): Sample[] => [...this.threads].map(([thread, g]) => ({ labels: { thread }, value: pick(g) }));
    this.gauge('sluice_gateway_in_flight', 'Gateway calls in progress, by io thread', perThread((g) => g.inFlight));
    this.gauge('sluice_worker_pool_active', 'Worker pool slots held, by io thread ([passthru_http] worker_pool_size_max)', perThread((g) => g.workerPool.active));
    this.gauge('sluice_worker_pool_waiting', 'Messages waiting for a worker pool slot, by io thread', perThread((g) => g.workerPool.waiting));
    this.gauge('sluice_worker_pool_max', 'worker_pool_size_max, by io thread', perThread((g) => g.workerPool.max));
    this.gauge('sluice_worker_pool_core', 'worker_pool_size_core, by io thread', perThread((g) => g.workerPool.core));
    this.gauge('sluice_worker_pool_busy_ratio', 'Average share of the core size busy over the last minute, by io thread', perThread((g) => g.workerPool.busyShare));
    this.register(new ComputedMetric('sluice_worker_pool_rejected_total', 'Messages refused because the worker pool queue was full (503), by io thread', 'counter', perThread((g) => g.workerPool.rejected)));
    this.gauge('sluice_io_thread_eventloop_utilization', 'Share of time the io thread\'s event loop was busy since its previous report (0-1), by io thread', perThread((g) => g.eventLoop.utilization));
    this.gauge('sluice_io_thread_eventloop_lag_seconds', 'Mean delay of the io thread\'s timers since its previous report, by io thread', perThread((g) => g.eventLoop.lagMeanSeconds));
    this.gauge('sluice_io_thread_eventloop_lag_p99_seconds', '99th percentile of the io thread\'s timer delay since its previous report, by io thread', perThread((g) => g.eventLoop.lagP99Seconds));
    this.gauge('sluice_io_thread_eventloop_lag_max_seconds', 'Largest delay of the io thread\'s timers since its previous report, by io thread', perThread((g) => g.eventLoop.lagMaxSeconds));
    const pools = (pick: (p: ThreadGauges['pools'][number]) => number, state?: string) => (): Sample[] => {
      const sums = new Map<string, number>();
      for (const g of this.threads.values()) for (const p of g.pools) sums.set(p.origin, (sums.get(p.origin) ?? 0) + pick(p));
      return [...sums].map(([backend, value]): Sample => ({ labels: state ? { backend, state } : { backend }, value }));
    };
    this.gauge('sluice_backend_connections', 'Connections to backends by origin and state (open, idle, busy, connecting), all io threads', () => [
      ...pools((p) => p.open, 'open')(), ...pools((p) => p.idle, 'idle')(), ...pools((p) => p.busy, 'busy')(), ...pools((p) => p.connecting, 'connecting')(),
    ]);
    this.gauge('sluice_backend_waiting_requests', 'Calls waiting for a backend connection (http.max.connection.per.host.port reached), by origin', pools((p) => p.waiting));
    collectDefaultMetrics({ register: this.registry });
    for (const name of DEFAULT_GAUGES_DROPPED) this.registry.removeSingleMetric(name);
  }

  private register(m: ComputedMetric): void {
    this.registry.registerMetric(m as unknown as Metric);
  }

  /** A gauge computed at scrape time; other parts add theirs (store pool, gateways, event hub). */
  gauge(name: string, help: string, collect: () => Sample[] | Promise<Sample[]>): void {
    this.register(new ComputedMetric(name, help, 'gauge', collect));
  }

  /** A counter kept elsewhere (a running total), read at scrape time (io thread restarts). */
  counter(name: string, help: string, collect: () => Sample[] | Promise<Sample[]>): void {
    if (!name.endsWith('_total')) throw new Error(`counter ${name} must end in _total`);
    this.register(new ComputedMetric(name, help, 'counter', collect));
  }

  /** One io thread's report. */
  addDelta(d: MetricsDelta): void {
    for (const [api, version, status, n] of d.requests) this.requests.inc({ api: api || '-', version: version || '-', status: String(status), code: '' }, n);
    for (const [api, version, req, resp] of d.bytes) {
      const labels = { api: api || '-', version: version || '-' };
      if (req) this.requestBytes.inc(labels, req);
      if (resp) this.responseBytes.inc(labels, resp);
    }
    for (const h of d.latency) this.latency.add(h);
    for (const h of d.backendLatency) this.backendLatency.add(h);
    for (const [code, base, state, n] of d.transportErrors) {
      this.transportErrors.inc({ code: String(code), base: String(base), state: PROTOCOL_STATE_NAMES[state] ?? String(state) }, n);
    }
    for (const [api, version, code, kind, status, n] of d.faults) {
      const a = api || '-';
      const v = version || '-';
      this.requests.inc({ api: a, version: v, status: String(status), code: String(code) }, n);
      this.faults.inc({ api: a, version: v, code: String(code), kind: FAULT_KIND_NAMES[kind] ?? 'other' }, n);
    }
  }

  setThreadGauges(thread: number, g: ThreadGauges): void {
    this.threads.set(thread, g);
  }

  servletRequest(r: ServletRecord): void {
    this.servlet.inc({ method: r.method, status: String(r.status) });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
