import fs from 'node:fs';
import path from 'node:path';
import { runLoad, type LoadResult } from './lib/load.js';
import { PROJECT, benchApiToml, cleanupAll, nginxAvailable, rssOf, startNginxBackend, startSluice, stopTracked } from './lib/products.js';

/**
 * `npm run sweep`: the [passthru_http] keys that change throughput or latency, one at a time, each value on
 * a fresh Sluice (1 io thread unless the knob is the io thread count) in front of the same nginx backend.
 * The figures in docs/tuning.md come from this script. Environment:
 *   SWEEP_DURATION  seconds per measured run (default 5; a 2 s warm-up precedes each)
 *   SWEEP_ONLY      comma list of knob names to run (default: all)
 */
const DURATION = Number(process.env['SWEEP_DURATION'] ?? 5);
const ONLY = process.env['SWEEP_ONLY']?.split(',') ?? null;
const BACKEND = 18970;
const OFFSET = 760;

const API = benchApiToml({ name: 'SweepOpen', context: '/open', backend: `http://127.0.0.1:${BACKEND}` });

interface Knob {
  readonly name: string;
  /** What is varied, as the operator writes it. */
  readonly key: string;
  readonly values: readonly (number | boolean)[];
  /** deployment.toml fragment for one value. */
  conf(v: number | boolean): Record<string, unknown>;
  readonly ioThreads?: (v: number | boolean) => number;
  readonly connections: number;
  readonly resource: string;
}

const KNOBS: readonly Knob[] = [
  { name: 'io-threads', key: 'passthru_http.io_threads_per_reactor', values: [1, 2], conf: () => ({}), ioThreads: (v) => Number(v), connections: 100, resource: '/x' },
  { name: 'worker-pool', key: 'passthru_http.worker_pool_size_core = _max', values: [8, 64, 400], conf: (v) => ({ passthru_http: { worker_pool_size_core: v, worker_pool_size_max: v } }), connections: 1000, resource: '/x' },
  { name: 'queue-length', key: 'passthru_http.worker_pool_queue_length (pool 64)', values: [-1, 200], conf: (v) => ({ passthru_http: { worker_pool_size_core: 64, worker_pool_size_max: 64, worker_pool_queue_length: v } }), connections: 1000, resource: '/x' },
  { name: 'io-buffer', key: 'passthru_http.io_buffer_size (1 MiB download)', values: [4096, 16384, 65536], conf: (v) => ({ passthru_http: { io_buffer_size: v } }), connections: 20, resource: '/1mb' },
  { name: 'max-per-host', key: 'passthru_http."http.max.connection.per.host.port"', values: [4, 32, 32767], conf: (v) => ({ passthru_http: { 'http.max.connection.per.host.port': v } }), connections: 100, resource: '/x' },
  { name: 'keep-alive', key: 'passthru_http.disable_connection_keepalive', values: [false, true], conf: (v) => ({ passthru_http: { disable_connection_keepalive: v } }), connections: 100, resource: '/x' },
];

interface Row { readonly knob: string; readonly key: string; readonly value: number | boolean; readonly connections: number; readonly result: LoadResult; readonly peakRssMiB: number }

async function main(): Promise<void> {
  if (!nginxAvailable()) throw new Error('nginx is needed (apt-get install nginx)');
  await startNginxBackend(BACKEND);
  const rows: Row[] = [];
  let n = 0;
  for (const k of KNOBS) {
    if (ONLY && !ONLY.includes(k.name)) continue;
    process.stdout.write(`\n== ${k.key}, ${k.connections} connections, GET ${k.resource}\n`);
    for (const v of k.values) {
      const s = await startSluice({ offset: OFFSET + (n++ % 20), ioThreads: k.ioThreads?.(v) ?? 1, files: { 'repository/deployment/server/apis/sweep.toml': API }, conf: k.conf(v) });
      const url = `http://127.0.0.1:${s.http}/open/1.0.0${k.resource}`;
      await runLoad({ url, connections: k.connections, durationSec: 2 });
      let peak = 0;
      const result = await runLoad({ url, connections: k.connections, durationSec: DURATION, sample: () => { peak = Math.max(peak, rssOf(s.proc.pid!)); } });
      await stopTracked(s.proc);
      rows.push({ knob: k.name, key: k.key, value: v, connections: k.connections, result, peakRssMiB: Math.round(peak / 1024 / 1024) });
      const l = result.latencyMs;
      process.stdout.write(`  ${String(v).padEnd(7)} ${result.requestsPerSec.toFixed(0).padStart(7)} req/s  ${result.throughputMiBps.toFixed(0).padStart(5)} MiB/s  p50 ${l.p50.toFixed(2)} p99 ${l.p99.toFixed(2)} ms  RSS ${Math.round(peak / 1024 / 1024)} MiB`
        + `${result.non2xx || result.errors ? `  (non-2xx ${result.non2xx}, errors ${result.errors})` : ''}\n`);
    }
  }
  const dir = path.join(PROJECT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(dir, `sweep-${stamp}.json`), JSON.stringify({ at: new Date().toISOString(), durationSec: DURATION, rows }, null, 2));
  process.stdout.write(`\nwritten bench/results/sweep-${stamp}.json\n`);
}

main().then(() => { cleanupAll(); process.exit(0); }, (e: unknown) => { process.stderr.write(`sweep failed: ${e instanceof Error ? e.stack : String(e)}\n`); cleanupAll(); process.exit(1); });
