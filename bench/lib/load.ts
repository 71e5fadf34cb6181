import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly durationSec: number;
  readonly method?: 'GET' | 'POST';
  readonly body?: Buffer;
  readonly headers?: Record<string, string>;
  /** Sampled during the run (RSS of the gateway, for example). */
  readonly sample?: () => void;
}

export interface LoadResult {
  readonly requestsPerSec: number;
  readonly requests: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly throughputMiBps: number;
  /** Latency percentiles in milliseconds, from hdr-histogram-js. */
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly p999: number; readonly max: number };
}

/** One autocannon run; every response's time goes into an HDR histogram (microsecond resolution). */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
  const timer = o.sample ? setInterval(o.sample, 250) : null;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: o.url,
      connections: o.connections,
      duration: o.durationSec,
      method: o.method ?? 'GET',
      ...(o.body ? { body: o.body } : {}),
      headers: o.headers ?? {},
      pipelining: 1,
      timeout: 30,
    }, (err, result) => (err ? reject(err) : resolve(result)));
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      h.recordValue(Math.max(1, Math.round(responseTime * 1000)));
    });
  });
  if (timer) clearInterval(timer);
  const ms = (p: number): number => h.getValueAtPercentile(p) / 1000;
  const out: LoadResult = {
    requestsPerSec: r.requests.total / o.durationSec,
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    throughputMiBps: r.throughput.average / 1024 / 1024,
    latencyMs: { p50: ms(50), p90: ms(90), p99: ms(99), p999: ms(99.9), max: h.maxValue / 1000 },
  };
  h.destroy();
  return out;
}
