import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { runLoad, type LoadResult } from './lib/load.js';
import { svgChart, type ChartRow } from './lib/chart.js';
import { Progress } from './lib/progress.js';
import {
  PROJECT, benchApiToml, cleanupAll, nginxAvailable, rssOf, startFastifyProxy, startFloorProxy, startNginxBackend, startNginxProxy, startSluice, stopTracked, type SluiceHandle,
} from './lib/products.js';

/**
 * `npm run bench`: Sluice against nginx (same number of workers as io threads, upstream keep-alive),
 * @fastify/http-proxy and the direct backend, in one run, on one machine; for the small GET also the floor
 * of Sluice's own stack (bench/floor-proxy.ts: Node sockets with a shared read buffer + llhttp, no gateway logic), which tells
 * what the gateway's logic costs and what the stack itself allows. Parameters from the environment:
 *   BENCH_DURATION   seconds per measured run (default 10; a 2 s warm-up precedes each product)
 *   BENCH_THREADS    io threads / nginx workers to try (default "1,2")
 *   BENCH_CONNECTIONS connections for the pass-through GET scenario (default "10,100,1000"); others use 100
 *   BENCH_QUICK=1    3 s runs, 50 connections, 1 thread: a smoke run
 * Output: a table on the terminal, bench/results/<time>.json and latest.json, bench/results/latest.svg.
 */
const QUICK = process.env['BENCH_QUICK'] === '1';
const DURATION = Number(process.env['BENCH_DURATION'] ?? (QUICK ? 3 : 10));
const THREADS = (process.env['BENCH_THREADS'] ?? (QUICK ? '1' : '1,2')).split(',').map(Number);
const CONNECTIONS = (process.env['BENCH_CONNECTIONS'] ?? (QUICK ? '50' : '10,100,1000')).split(',').map(Number);
const OTHER_CONNECTIONS = QUICK ? 50 : 100;

const BACKEND = 18990;
const NGINX = 18991;
const FASTIFY = 18992;
const FLOOR = 18993;
const OFFSET = 700;

type Product = 'direct' | 'nginx' | 'fastify' | 'floor' | 'sluice';

interface Measurement {
  readonly scenario: string;
  readonly product: Product;
  readonly threads: number;
  readonly connections: number;
  readonly result: LoadResult;
  /** Sluice only: peak RSS during the run, bytes. */
  readonly peakRss?: number;
}

const API = (name: string, context: string, auth: string, extra = ''): string =>
  benchApiToml({ name, context, backend: `http://127.0.0.1:${BACKEND}`, verbs: ['GET', 'POST'], auth, extra });

const SLUICE_FILES: Record<string, string> = {
  'repository/deployment/server/apis/bench-open.toml': API('BenchOpen', '/open', 'None'),
  'repository/deployment/server/apis/bench-secure.toml': API('BenchSecure', '/secure', 'Application & Application User'),
  'repository/deployment/server/apis/bench-throttled.toml': API('BenchThrottled', '/throttled', 'Application & Application User').replace('throttling_policy = "Unlimited"\n', 'throttling_policy = "BenchAdvanced"\n'),
  'repository/deployment/server/apis/bench-mediated.toml': API('BenchMediated', '/mediated', 'None', 'in_sequence = "bench_in"'),
  'repository/deployment/server/synapse-configs/default/sequences/bench_in.xml': `<sequence xmlns="http://ws.apache.org/ns/synapse" name="bench_in">
  <property name="bench" value="yes"/>
  <header name="X-Bench" value="in-sequence" scope="transport"/>
</sequence>`,
  'repository/deployment/server/policies/bench.toml': `[[subscription]]
name = "BenchGold"
requests = 100000000
unit_time = 1
time_unit = "min"
stop_on_quota_reach = true
[[application]]
name = "BenchApp"
requests = 100000000
unit_time = 1
time_unit = "min"
[[advanced]]
name = "BenchAdvanced"
requests = 100000000
unit_time = 1
time_unit = "min"
`,
  'repository/deployment/server/applications/bench-app.toml': `name = "BenchApp"
owner = "admin"
throttling_policy = "BenchApp"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "bench-client"
client_secret = "bench-secret"
grant_types = ["client_credentials"]
[[subscriptions]]
api = "BenchSecure:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
[[subscriptions]]
api = "BenchThrottled:1.0.0"
throttling_policy = "BenchGold"
state = "UNBLOCKED"
`,
};

async function token(s: SluiceHandle): Promise<string> {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  const res = await request(`https://127.0.0.1:${s.servletHttps}/oauth2/token`, {
    method: 'POST', dispatcher,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from('bench-client:bench-secret').toString('base64') },
    body: 'grant_type=client_credentials',
  });
  const j = JSON.parse(await res.body.text()) as { access_token?: string };
  if (!j.access_token) throw new Error('the benchmark application got no token');
  return j.access_token;
}

const measurements: Measurement[] = [];
const BODY_10K = Buffer.alloc(10 * 1024, 120);

/** The products compared at a thread count (fastify runs one thread only). */
const productsAt = (threads: number): Product[] => (threads === 1 ? ['direct', 'nginx', 'fastify', 'sluice'] : ['direct', 'nginx', 'sluice']);
/** Every measured load main() runs, counted before it starts: GETs (products and the floor) per connection count, POST and download per product, three Sluice-only scenarios. */
const TOTAL_LOADS = THREADS.reduce((n, t) => n + (productsAt(t).length + 1) * CONNECTIONS.length + productsAt(t).length * 2 + 3, 0);
const progress = new Progress(TOTAL_LOADS, DURATION + 2);

async function measure(scenario: string, product: Product, threads: number, connections: number, url: string,
  o: { method?: 'GET' | 'POST'; body?: Buffer; headers?: Record<string, string>; pid?: number } = {}): Promise<void> {
  progress.next(`${scenario}, ${product}, ${threads} thread(s), ${connections} connections`);
  await runLoad({ url, connections, durationSec: 2, ...o });
  let peak = 0;
  const result = await runLoad({ url, connections, durationSec: DURATION, ...o, ...(o.pid ? { sample: () => { peak = Math.max(peak, rssOf(o.pid!)); } } : {}) });
  measurements.push({ scenario, product, threads, connections, result, ...(o.pid ? { peakRss: peak } : {}) });
  progress.finished();
  const l = result.latencyMs;
  process.stdout.write(`  ${scenario.padEnd(28)} ${product.padEnd(8)} t=${threads} c=${String(connections).padEnd(5)} ${result.requestsPerSec.toFixed(0).padStart(7)} req/s  p50 ${l.p50.toFixed(2)} p99 ${l.p99.toFixed(2)} p99.9 ${l.p999.toFixed(2)} ms${result.non2xx || result.errors ? `  (non-2xx ${result.non2xx}, errors ${result.errors})` : ''}\n`);
}

function find(scenario: string, product: Product, threads: number, connections: number): Measurement | undefined {
  return measurements.find((m) => m.scenario === scenario && m.product === product && m.threads === threads && m.connections === connections);
}

function ratio(a: Measurement | undefined, b: Measurement | undefined): number | null {
  return a && b && b.result.requestsPerSec > 0 ? a.result.requestsPerSec / b.result.requestsPerSec : null;
}

async function main(): Promise<void> {
  if (!nginxAvailable()) throw new Error('nginx is needed (apt-get install nginx)');
  process.stdout.write(`Sluice benchmark: ${TOTAL_LOADS} loads of ${DURATION} s (after 2 s of warm-up each), threads ${THREADS.join(',')}, connections ${CONNECTIONS.join(',')}\n`);
  await startNginxBackend(BACKEND);
  const fastify = await startFastifyProxy(FASTIFY, BACKEND);
  for (const threads of THREADS) {
    process.stdout.write(`\n== ${threads} io thread(s) / nginx worker(s)\n`);
    await startNginxProxy(NGINX + threads * 10, BACKEND, threads);
    const floor = await startFloorProxy(FLOOR + threads * 10, BACKEND, threads);
    const sluice = await startSluice({ offset: OFFSET + threads * 10, ioThreads: threads, files: SLUICE_FILES });
    const pid = sluice.proc.pid!;
    const at = await token(sluice);
    const base = `http://127.0.0.1:${sluice.http}`;
    const urls: Record<Product, string> = {
      direct: `http://127.0.0.1:${BACKEND}`, nginx: `http://127.0.0.1:${NGINX + threads * 10}`, fastify: `http://127.0.0.1:${FASTIFY}`,
      floor: `http://127.0.0.1:${FLOOR + threads * 10}`, sluice: `${base}/open/1.0.0`,
    };
    const products = productsAt(threads);
    for (const c of CONNECTIONS) {
      for (const p of [...products, 'floor' as const]) await measure('pass-through GET small', p, threads, c, `${urls[p]}/x`, p === 'sluice' ? { pid } : {});
    }
    await stopTracked(floor);
    for (const p of products) await measure('pass-through POST 10 KB', p, threads, OTHER_CONNECTIONS, `${urls[p]}/x`, { method: 'POST', body: BODY_10K, headers: { 'content-type': 'application/octet-stream' }, ...(p === 'sluice' ? { pid } : {}) });
    for (const p of products) await measure('pass-through 1 MiB download', p, threads, Math.min(OTHER_CONNECTIONS, 20), `${urls[p]}/1mb`, p === 'sluice' ? { pid } : {});
    const auth = { authorization: `Bearer ${at}` };
    await measure('JWT (token cache hit)', 'sluice', threads, OTHER_CONNECTIONS, `${base}/secure/1.0.0/x`, { headers: auth, pid });
    await measure('JWT + subscription + throttle', 'sluice', threads, OTHER_CONNECTIONS, `${base}/throttled/1.0.0/x`, { headers: auth, pid });
    await measure('small in-sequence', 'sluice', threads, OTHER_CONNECTIONS, `${base}/mediated/1.0.0/x`, { pid });
    await stopTracked(sluice.proc);
  }
  await stopTracked(fastify);
  report();
}

function report(): void {
  const lines: string[] = ['', 'Ratios (requests/s, same run):'];
  const rows: Record<string, number | null> = {};
  for (const threads of THREADS) {
    const c = CONNECTIONS.includes(100) ? 100 : CONNECTIONS[0]!;
    const s = find('pass-through GET small', 'sluice', threads, c);
    rows[`t=${threads} c=${c} sluice/nginx`] = ratio(s, find('pass-through GET small', 'nginx', threads, c));
    rows[`t=${threads} c=${c} sluice/direct`] = ratio(s, find('pass-through GET small', 'direct', threads, c));
    if (threads === 1) rows[`t=1 c=${c} sluice/fastify`] = ratio(s, find('pass-through GET small', 'fastify', threads, c));
    rows[`t=${threads} c=${c} floor/nginx`] = ratio(find('pass-through GET small', 'floor', threads, c), find('pass-through GET small', 'nginx', threads, c));
    rows[`t=${threads} c=${c} sluice/floor`] = ratio(s, find('pass-through GET small', 'floor', threads, c));
    const open = find('pass-through GET small', 'sluice', threads, OTHER_CONNECTIONS) ?? s;
    rows[`t=${threads} JWT / pass-through`] = ratio(find('JWT (token cache hit)', 'sluice', threads, OTHER_CONNECTIONS), open);
    rows[`t=${threads} JWT+throttle / pass-through`] = ratio(find('JWT + subscription + throttle', 'sluice', threads, OTHER_CONNECTIONS), open);
    rows[`t=${threads} in-sequence / pass-through`] = ratio(find('small in-sequence', 'sluice', threads, OTHER_CONNECTIONS), open);
    if (s && find('pass-through GET small', 'nginx', threads, c)) {
      rows[`t=${threads} c=${c} p99 sluice/nginx`] = s.result.latencyMs.p99 / find('pass-through GET small', 'nginx', threads, c)!.result.latencyMs.p99;
    }
    const peak = Math.max(0, ...measurements.filter((m) => m.threads === threads && m.peakRss).map((m) => m.peakRss!));
    lines.push(`  t=${threads} peak gateway RSS: ${(peak / 1024 / 1024).toFixed(0)} MiB (${(peak / threads / 1024 / 1024).toFixed(0)} MiB per io thread)`);
  }
  for (const [k, v] of Object.entries(rows)) lines.push(`  ${k.padEnd(38)} ${v === null ? 'n/a' : v.toFixed(2) + 'x'}`);
  process.stdout.write(lines.join('\n') + '\n');
  const dir = path.join(PROJECT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify({ at: new Date().toISOString(), durationSec: DURATION, threads: THREADS, connections: CONNECTIONS, ratios: rows, measurements }, null, 2);
  fs.writeFileSync(path.join(dir, `${stamp}.json`), json);
  fs.writeFileSync(path.join(dir, 'latest.json'), json);
  const chartRows: ChartRow[] = [];
  for (const m of measurements) {
    const key = `${m.scenario} t=${m.threads} c=${m.connections}`;
    let row = chartRows.find((r) => r.scenario === key);
    if (!row) { row = { scenario: key, values: {} }; chartRows.push(row); }
    (row.values as Record<string, { rps: number; p99: number }>)[m.product] = { rps: m.result.requestsPerSec, p99: m.result.latencyMs.p99 };
  }
  fs.writeFileSync(path.join(dir, 'latest.svg'), svgChart(chartRows, `Sluice benchmark ${new Date().toISOString()}`));
  process.stdout.write(`\nresults: bench/results/${stamp}.json, bench/results/latest.json, bench/results/latest.svg\n`);
}

main().then(() => { cleanupAll(); process.exit(0); }, (err: Error) => { process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`); cleanupAll(); process.exit(1); });
