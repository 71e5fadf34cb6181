/**
 * Throttling benchmark: calls per second through an API whose calls are counted by an API-level and a
 * resource-level policy (limits far above the load, so every call passes the throttle phase and reaches
 * the backend), against the same API with no limits, in one `sluice start` process, rounds interleaved
 * (unlimited, limited, unlimited, limited...). The ratio limited / unlimited is the cost of throttling.
 *
 *   npm run build && node dist/bench/throttling.js
 *
 * Environment: BENCH_DURATION (s per run, 10), BENCH_CONNECTIONS (64), BENCH_ROUNDS (2), BENCH_IO_THREADS
 * (io_threads_per_reactor, 1), BENCH_REDIS (1: counters shared through a redis-server started here).
 * Prints a table and writes bench/results/throttling-<time>.json. Not part of `npm run bench`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { stringify } from 'smol-toml';
import { waitPort } from './lib/ports.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
const env = (k: string, d: number): number => (process.env[k] !== undefined ? Number(process.env[k]) : d);
const DURATION = env('BENCH_DURATION', 10);
const CONNECTIONS = env('BENCH_CONNECTIONS', 64);
const ROUNDS = env('BENCH_ROUNDS', 2);
const IO_THREADS = env('BENCH_IO_THREADS', 1);
const REDIS = env('BENCH_REDIS', 0) === 1;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
  });
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The backend in its own process, so it does not share the event loop with the load generator. */
function startBackend(port: number): void {
  const code = `require('http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json', 'content-length': 24 }); s.end('{"hello":"world","n":42}'); }).listen(${port}, '127.0.0.1');`;
  children.push(spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
}

function makeHome(ports: { http: number; https: number; servlet: number; servletHttp: number; backend: number; redis: number }): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-throttle-'));
  dirs.push(home);
  fs.cpSync(path.join(ROOT, 'home/repository'), path.join(home, 'repository'), { recursive: true, filter: (p) => !/repository\/(database|logs)(\/|$)/.test(p) });
  const conf = path.join(home, 'repository/conf/deployment.toml');
  fs.writeFileSync(conf, stringify({
    server: { hostname: 'localhost', offset: 0, server_role: 'default' },
    super_admin: { username: 'admin', password: 'admin', create_admin_account: true },
    database: { apim_db: { type: 'h2', url: 'jdbc:h2:./repository/database/WSO2AM_DB;DB_CLOSE_ON_EXIT=FALSE' } },
    apim: {
      key_manager: { service_url: 'https://localhost:9443/services/' },
      throttling: { throttle_decision_endpoints: ['tcp://localhost:5672'], service_url: 'https://localhost:9443/services/' },
      ...(REDIS ? { redis_config: { enable: true, url: `redis://127.0.0.1:${ports.redis}`, sync_interval: 100 } } : {}),
    },
    transport: {
      passthru_http: { listener: { parameters: { port: ports.http } }, 'listener.bind-address': '127.0.0.1' },
      passthru_https: { listener: { enable: false, parameters: { port: ports.https } } },
      http: { properties: { port: ports.servletHttp } },
      https: { properties: { port: ports.servlet } },
    },
    passthru_http: { io_threads_per_reactor: IO_THREADS },
    sluice: { log: { level: 'warn' } },
  }));
  const apis = path.join(home, 'repository/deployment/server/apis');
  fs.mkdirSync(apis, { recursive: true });
  const api = (name: string, context: string, apiPolicy: string, resourcePolicy: string): string => `name = "${name}"
context = "${context}"
version = "1.0.0"
throttling_policy = "${apiPolicy}"
[endpoints]
production = "http://127.0.0.1:${ports.backend}"
[[resources]]
verb = "GET"
uri_template = "/*"
auth_type = "None"
throttling_policy = "${resourcePolicy}"
`;
  fs.writeFileSync(path.join(apis, 'plain.toml'), api('Plain', '/plain', 'Unlimited', 'Unlimited'));
  fs.writeFileSync(path.join(apis, 'limited.toml'), api('Limited', '/limited', 'BenchApi', 'BenchResource'));
  fs.writeFileSync(path.join(home, 'repository/deployment/server/policies/bench.toml'), `[[advanced]]
name = "BenchApi"
requests = 1000000000
unit_time = 1
time_unit = "hour"

[[advanced]]
name = "BenchResource"
requests = 1000000000
unit_time = 1
time_unit = "hour"
`);
  return home;
}

interface Run {
  readonly scenario: string;
  readonly round: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
}

async function run(scenario: string, round: number, url: string): Promise<Run> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, pipelining: 1 });
  return { scenario, round, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist/engine/cli/main.js'))) throw new Error('run `npm run build` first');
  const ports = { http: await freePort(), https: await freePort(), servlet: await freePort(), servletHttp: await freePort(), backend: await freePort(), redis: await freePort() };
  startBackend(ports.backend);
  if (REDIS) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-redis-'));
    dirs.push(dir);
    children.push(spawn('redis-server', ['--port', String(ports.redis), '--bind', '127.0.0.1', '--save', '', '--dir', dir], { stdio: 'ignore' }));
    await waitPort(ports.redis, 10000);
  }
  const home = makeHome(ports);
  const sluice = spawn(path.join(ROOT, 'bin/sluice.js'), ['start', '--home', home], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(sluice);
  await waitPort(ports.backend, 10000);
  await waitPort(ports.http, 30000);
  const base = `http://127.0.0.1:${ports.http}`;
  // Warm-up of both paths (JIT, backend connections).
  await autocannon({ url: `${base}/plain/1.0.0/x`, connections: CONNECTIONS, duration: 2 });
  await autocannon({ url: `${base}/limited/1.0.0/x`, connections: CONNECTIONS, duration: 2 });
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    runs.push(await run('unlimited', round, `${base}/plain/1.0.0/x`));
    runs.push(await run('throttled (API + resource policies, under the limit)', round, `${base}/limited/1.0.0/x`));
  }
  const mean = (s: string): number => {
    const xs = runs.filter((r) => r.scenario.startsWith(s)).map((r) => r.rps);
    return Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  };
  const unlimited = mean('unlimited');
  const throttled = mean('throttled');
  const ratio = Math.round((throttled / unlimited) * 1000) / 1000;
  const head = ['scenario', 'round', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'];
  const table = [head, ...runs.map((r) => [r.scenario, r.round, r.rps, r.p50, r.p99, r.non2xx, r.errors].map(String))];
  const widths = head.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]): string => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  process.stdout.write(`\nthrottling: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, ${IO_THREADS} io thread(s), counters ${REDIS ? 'shared through Redis' : 'local'}; ${os.cpus().length} cores\n\n`);
  process.stdout.write(table.map(line).join('\n') + '\n');
  process.stdout.write(`\nthrottled / unlimited: ${throttled} / ${unlimited} = ${ratio}x\n`);
  const out = path.join(ROOT, 'bench/results', `throttling-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({
    bench: 'throttling', at: new Date().toISOString(), node: process.version, cores: os.cpus().length,
    params: { duration: DURATION, connections: CONNECTIONS, rounds: ROUNDS, ioThreads: IO_THREADS, redis: REDIS },
    runs, unlimitedRps: unlimited, throttledRps: throttled, ratio,
  }, null, 2) + '\n');
  process.stdout.write(`written ${path.relative(process.cwd(), out)}\n`);
  sluice.kill('SIGTERM');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/throttling: ${(err as Error).message}\n`);
  process.exitCode = 1;
}).finally(() => { setTimeout(() => process.exit(), 500).unref(); });
