import { Counter, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { PROTOCOL_STATE_NAMES } from '../../transport/protocol-state.js';
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

/**
 * The node's Prometheus registry (GET /metrics, docs/operations.md lists every series): gateway calls from
 * the io threads' reports, servlet requests, and the gauges other parts register (store pool, gateways,
 * event hub). One registry per node, not prom-client's global one, so that several nodes can share a process.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'api' | 'version' | 'status'>;
  private readonly latency = new MergedHistogram('sluice_gateway_request_duration_seconds', 'Gateway calls: time from the request to the end of the response, by API');
  private readonly backendLatency = new MergedHistogram('sluice_gateway_backend_duration_seconds', 'Gateway calls: time from dispatch to the backend\'s response head, by API');
  private readonly transportErrors: Counter<'code' | 'base' | 'state'>;
  private readonly faults: Counter<'api' | 'version' | 'code'>;
  private readonly throttled: Counter<'api' | 'version' | 'code'>;
  private readonly rejected: Counter<'api' | 'version' | 'code'>;
  private readonly servlet: Counter<'method' | 'status'>;
  private readonly threads = new Map<number, ThreadGauges>();

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'sluice_gateway_requests_total', help: 'Gateway calls by API, version and status sent to the client (499: the client left first)', labelNames: ['api', 'version', 'status'], registers });
    this.transportErrors = new Counter({ name: 'sluice_gateway_transport_errors_total', help: 'Backend transport errors by error code, base code and protocol state (seed 000)', labelNames: ['code', 'base', 'state'], registers });
    this.faults = new Counter({ name: 'sluice_gateway_faults_total', help: 'Gateway calls that ended with an error code, by API and code', labelNames: ['api', 'version', 'code'], registers });
    this.throttled = new Counter({ name: 'sluice_gateway_throttled_total', help: 'Calls refused by throttling (900800-900807), by API and code', labelNames: ['api', 'version', 'code'], registers });
    this.rejected = new Counter({ name: 'sluice_gateway_rejected_total', help: 'Calls refused before any backend was called (authentication, subscription, no API or resource, blocked API, capacity), by API and code', labelNames: ['api', 'version', 'code'], registers });
    this.servlet = new Counter({ name: 'sluice_servlet_requests_total', help: 'Requests on the servlet ports (token, admin, health, metrics) by method and status', labelNames: ['method', 'status'], registers });
    this.register(this.latency.metric);
    this.register(this.backendLatency.metric);
    const perThread = (pick: (g: ThreadGauges) => number) => (): Sample[] => [...this.threads].map(([thread, g]) => ({ labels: { thread }, value: pick(g) }));
    this.gauge('sluice_gateway_in_flight', 'Gateway calls in progress, by io thread', perThread((g) => g.inFlight));
    this.gauge('sluice_worker_pool_active', 'Worker pool slots held, by io thread ([passthru_http] worker_pool_size_max)', perThread((g) => g.workerPool.active));
    this.gauge('sluice_worker_pool_waiting', 'Messages waiting for a worker pool slot, by io thread', perThread((g) => g.workerPool.waiting));
    this.gauge('sluice_worker_pool_max', 'worker_pool_size_max, by io thread', perThread((g) => g.workerPool.max));
    this.gauge('sluice_worker_pool_core', 'worker_pool_size_core, by io thread', perThread((g) => g.workerPool.core));
    this.gauge('sluice_worker_pool_busy_ratio', 'Average share of the core size busy over the last minute, by io thread', perThread((g) => g.workerPool.busyShare));
    this.register(new ComputedMetric('sluice_worker_pool_rejected_total', 'Messages refused because the worker pool queue was full (503), by io thread', 'counter', perThread((g) => g.workerPool.rejected)));
    const pools = (pick: (p: ThreadGauges['pools'][number]) => number, state?: string) => (): Sample[] => {
      const sums = new Map<string, number>();
      for (const g of this.threads.values()) for (const p of g.pools) sums.set(p.key, (sums.get(p.key) ?? 0) + pick(p));
      return [...sums].map(([backend, value]): Sample => ({ labels: state ? { backend, state } : { backend }, value }));
    };
    this.gauge('sluice_backend_connections', 'Connections to backends by origin and state (open, idle, busy, connecting), all io threads', () => [
      ...pools((p) => p.open, 'open')(), ...pools((p) => p.idle, 'idle')(), ...pools((p) => p.busy, 'busy')(), ...pools((p) => p.connecting, 'connecting')(),
    ]);
    this.gauge('sluice_backend_waiting_requests', 'Calls waiting for a backend connection (http.max.connection.per.host.port reached), by origin', pools((p) => p.waiting));
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_' });
  }

  private register(m: ComputedMetric): void {
    this.registry.registerMetric(m as unknown as Metric);
  }

  /** A gauge computed at scrape time; other parts add theirs (store pool, gateways, event hub). */
  gauge(name: string, help: string, collect: () => Sample[] | Promise<Sample[]>): void {
    this.register(new ComputedMetric(name, help, 'gauge', collect));
  }

  /** A counter read at scrape time from a count its owner keeps (`_total` names). */
  counter(name: string, help: string, collect: () => Sample[] | Promise<Sample[]>): void {
    this.register(new ComputedMetric(name, help, 'counter', collect));
  }

  /** One io thread's report. */
  addDelta(d: MetricsDelta): void {
    for (const [api, version, status, n] of d.requests) this.requests.inc({ api: api || '-', version: version || '-', status: String(status) }, n);
    for (const h of d.latency) this.latency.add(h);
    for (const h of d.backendLatency) this.backendLatency.add(h);
    for (const [code, base, state, n] of d.transportErrors) {
      this.transportErrors.inc({ code: String(code), base: String(base), state: PROTOCOL_STATE_NAMES[state] ?? String(state) }, n);
    }
    for (const [api, version, code, kind, n] of d.faults) {
      const labels = { api: api || '-', version: version || '-', code: String(code) };
      this.faults.inc(labels, n);
      if (kind === FaultKind.THROTTLED) this.throttled.inc(labels, n);
      else if (kind === FaultKind.REJECTED) this.rejected.inc(labels, n);
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
