/**
 * Key manager benchmark: client_credentials issuance per second (autocannon, keep-alive, HTTPS and HTTP
 * servlet ports, JWT and opaque tokens) and revocation latency (one revoke at a time, each awaited), against
 * `sluice start` running as its own process on a throwaway home.
 *
 *   npm run build && node dist/bench/keymanager.js
 *
 * Environment: BENCH_DURATION (s, 10), BENCH_CONNECTIONS (32), BENCH_REVOCATIONS (500),
 * BENCH_POOL (session_data.persistence.persistence_pool_size, 0), BENCH_HASHING (1: enable_token_hashing).
 * Prints a table and writes bench/results/keymanager-<time>.json.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { stringify } from 'smol-toml';
import { portFree, waitPort } from './lib/ports.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
const env = (k: string, d: number): number => (process.env[k] !== undefined ? Number(process.env[k]) : d);
const DURATION = env('BENCH_DURATION', 10);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const REVOCATIONS = env('BENCH_REVOCATIONS', 500);
const POOL = env('BENCH_POOL', 0);
const HASHING = env('BENCH_HASHING', 0) === 1;

const basic = (u: string, p: string): string => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64');

function makeHome(offset: number): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-km-'));
  fs.mkdirSync(path.join(home, 'repository/conf'), { recursive: true });
  fs.writeFileSync(path.join(home, 'repository/conf/deployment.toml'), stringify({
    server: { hostname: 'localhost', offset, server_role: 'api-key-manager' },
    super_admin: { username: 'admin', password: 'admin', create_admin_account: true },
    apim: { key_manager: { service_url: 'https://localhost:9443/services/' }, oauth_config: { enable_token_hashing: HASHING } },
    session_data: { persistence: { persistence_pool_size: POOL } },
    sluice: { log: { level: 'warn' } },
  }));
  const apps = path.join(home, 'repository/deployment/server/applications');
  fs.mkdirSync(apps, { recursive: true });
  fs.writeFileSync(path.join(apps, 'bench.toml'), `name = "BenchApp"
[[keys]]
client_id = "bench-client"
client_secret = "bench-secret"
`);
  fs.writeFileSync(path.join(apps, 'bench-opaque.toml'), `name = "BenchOpaque"
token_type = "OPAQUE"
[[keys]]
client_id = "bench-opaque"
client_secret = "bench-opaque-secret"
`);
  return home;
}

interface Row {
  readonly scenario: string;
  readonly rps: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly total: number;
  readonly errors: number;
}

async function issuance(name: string, url: string, auth: string): Promise<Row> {
  const r = await autocannon({
    url, connections: CONNECTIONS, duration: DURATION, method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    body: 'grant_type=client_credentials',
  });
  return {
    scenario: name, rps: Math.round(r.requests.average), p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max,
    total: r.requests.total, errors: r.errors + r.timeouts + r.non2xx,
  };
}

const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
function post(port: number, p: string, body: string, auth: string): Promise<{ status: number; json: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: p, method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { let json = {}; try { json = JSON.parse(text); } catch { /* empty body */ } resolve({ status: res.statusCode ?? 0, json }); });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function revocation(port: number, auth: string): Promise<Row> {
  const tokens: string[] = [];
  for (let i = 0; i < REVOCATIONS; i++) {
    const r = await post(port, '/oauth2/token', 'grant_type=client_credentials', auth);
    if (r.status !== 200) throw new Error(`token request failed: ${r.status}`);
    tokens.push(r.json['access_token']!);
  }
  const ms: number[] = [];
  let errors = 0;
  const start = process.hrtime.bigint();
  for (const tok of tokens) {
    const t0 = process.hrtime.bigint();
    const r = await post(port, '/oauth2/revoke', `token=${encodeURIComponent(tok)}&token_type_hint=access_token`, auth);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 200) errors++;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  ms.sort((a, b) => a - b);
  const round = (x: number): number => Math.round(x * 100) / 100;
  return {
    scenario: 'revoke (sequential, HTTPS)', rps: Math.round(tokens.length / seconds), p50: round(percentile(ms, 50)), p90: round(percentile(ms, 90)),
    p99: round(percentile(ms, 99)), max: round(ms[ms.length - 1]!), total: tokens.length, errors,
  };
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist/engine/cli/main.js'))) throw new Error('run `npm run build` first');
  let offset = 0;
  for (let i = 0; i < 50 && !offset; i++) {
    const o = 20000 + Math.floor(Math.random() * 20000);
    if ((await Promise.all([9443 + o, 9763 + o].map(portFree))).every(Boolean)) offset = o;
  }
  if (!offset) throw new Error('no free port offset');
  const home = makeHome(offset);
  const httpsPort = 9443 + offset;
  const httpPort = 9763 + offset;
  const child = spawn(path.join(ROOT, 'bin/sluice.js'), ['start', '--home', home], { stdio: ['ignore', 'inherit', 'inherit'] });
  const cleanup = (): void => { if (child.exitCode === null) child.kill('SIGTERM'); };
  process.on('exit', () => { cleanup(); fs.rmSync(home, { recursive: true, force: true }); });
  try {
    await waitPort(httpsPort, 30000);
    const jwtAuth = basic('bench-client', 'bench-secret');
    const opaqueAuth = basic('bench-opaque', 'bench-opaque-secret');
    // Warm-up: the first request per client pays the scrypt verification.
    await post(httpsPort, '/oauth2/token', 'grant_type=client_credentials', jwtAuth);
    await post(httpsPort, '/oauth2/token', 'grant_type=client_credentials', opaqueAuth);
    const rows: Row[] = [];
    rows.push(await issuance('client_credentials JWT (HTTPS)', `https://127.0.0.1:${httpsPort}/oauth2/token`, jwtAuth));
    rows.push(await issuance('client_credentials JWT (HTTP)', `http://127.0.0.1:${httpPort}/oauth2/token`, jwtAuth));
    rows.push(await issuance('client_credentials opaque (HTTPS)', `https://127.0.0.1:${httpsPort}/oauth2/token`, opaqueAuth));
    rows.push(await revocation(httpsPort, jwtAuth));
    const head = ['scenario', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'total', 'errors'];
    const table = [head, ...rows.map((r) => [r.scenario, r.rps, r.p50, r.p90, r.p99, r.max, r.total, r.errors].map(String))];
    const widths = head.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    const line = (row: string[]): string => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    process.stdout.write(`\nkey manager: ${CONNECTIONS} connections, ${DURATION} s per issuance run, ${REVOCATIONS} revocations; persistence_pool_size ${POOL}; token hashing ${HASHING ? 'on' : 'off'}; ${os.cpus().length} cores\n\n`);
    process.stdout.write(table.map(line).join('\n') + '\n');
    const out = path.join(ROOT, 'bench/results', `keymanager-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({
      bench: 'keymanager', at: new Date().toISOString(), node: process.version, cores: os.cpus().length,
      params: { duration: DURATION, connections: CONNECTIONS, revocations: REVOCATIONS, persistencePoolSize: POOL, tokenHashing: HASHING },
      rows,
    }, null, 2) + '\n');
    process.stdout.write(`\nwritten ${path.relative(process.cwd(), out)}\n`);
  } finally {
    agent.destroy();
    cleanup();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/keymanager: ${(err as Error).message}\n`);
  process.exitCode = 1;
});
