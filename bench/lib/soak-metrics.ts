import http from 'node:http';

/** One Prometheus sample: metric name, labels, value. */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses Prometheus text exposition (the subset prom-client writes: no timestamps, no exemplars). */
export function parseProm(text: string): PromSample[] {
  const out: PromSample[] = [];
  const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)\s*$/;
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('#')) continue;
    const m = line.exec(l);
    if (!m) continue;
    const labels: Record<string, string> = {};
    if (m[2]) for (const lm of m[2].matchAll(label)) labels[lm[1]!] = lm[2]!.replace(/\\(.)/g, (_a, c: string) => (c === 'n' ? '\n' : c));
    const v = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    out.push({ name: m[1]!, labels, value: v });
  }
  return out;
}

/** GET /metrics on a new connection each time (no keep-alive socket left open in the gateway). */
export function scrape(port: number, timeoutMs = 5000): Promise<PromSample[]> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', agent: false, headers: { connection: 'close' }, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => (res.statusCode === 200 ? resolve(parseProm(body)) : reject(new Error(`GET /metrics: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('GET /metrics timed out')));
    req.on('error', reject);
  });
}

/** Sum of the samples of `name` whose labels include `match`. */
export function sum(samples: readonly PromSample[], name: string, match: Record<string, string> = {}): number {
  let s = 0;
  for (const x of samples) {
    if (x.name !== name) continue;
    if (Object.entries(match).every(([k, v]) => x.labels[k] === v)) s += x.value;
  }
  return s;
}

/** Values of `name` grouped by one label (summed over the others). */
export function byLabel(samples: readonly PromSample[], name: string, key: string, match: Record<string, string> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of samples) {
    if (x.name !== name) continue;
    if (!Object.entries(match).every(([k, v]) => x.labels[k] === v)) continue;
    const k = x.labels[key] ?? '';
    out[k] = (out[k] ?? 0) + x.value;
  }
  return out;
}

/** The gauges the soak watches, in one flat record. */
export interface GatewayGauges {
  readonly inFlight: number;
  readonly workerActive: number;
  readonly workerWaiting: number;
  readonly workerMax: number;
  readonly workerRejected: number;
  /** Per backend origin: open, idle, busy, connecting, waiting. */
  readonly pools: Record<string, { open: number; idle: number; busy: number; connecting: number; waiting: number }>;
  readonly mainHeapUsed: number;
  readonly openFds: number;
}

export function gauges(s: readonly PromSample[]): GatewayGauges {
  const pools: GatewayGauges['pools'] = {};
  for (const x of s) {
    if (x.name !== 'sluice_backend_connections' && x.name !== 'sluice_backend_waiting_requests') continue;
    const b = x.labels['backend'] ?? '?';
    const p = (pools[b] ??= { open: 0, idle: 0, busy: 0, connecting: 0, waiting: 0 });
    if (x.name === 'sluice_backend_waiting_requests') p.waiting += x.value;
    else {
      const st = x.labels['state'];
      if (st === 'open' || st === 'idle' || st === 'busy' || st === 'connecting') p[st] += x.value;
    }
  }
  return {
    inFlight: sum(s, 'sluice_gateway_in_flight'),
    workerActive: sum(s, 'sluice_worker_pool_active'),
    workerWaiting: sum(s, 'sluice_worker_pool_waiting'),
    workerMax: sum(s, 'sluice_worker_pool_max'),
    workerRejected: sum(s, 'sluice_worker_pool_rejected_total'),
    pools,
    mainHeapUsed: sum(s, 'nodejs_heap_size_used_bytes'),
    openFds: sum(s, 'process_open_fds'),
  };
}
