/**
 * WebSocket benchmark: messages per second relayed through the gateway against the same clients talking to
 * the backend directly, in one run on one machine (DESIGN.md, "Performance method": the ratio is the result).
 *
 *   npm run build && node dist/bench/websocket.js
 *
 * The backend (a ws echo server) runs in its own process, `sluice start` in another, the clients in worker
 * threads of this one. Each client connection keeps BENCH_PIPELINE messages in flight and sends the next
 * one when an echo comes back; one echo is two relayed messages (client -> backend -> client).
 *
 * Scenarios: direct to the backend; through the gateway (a WS API with auth type None: the relay alone);
 * through the gateway with a dispatchSeq that reads every message (json-eval in a filter).
 *
 * Environment: BENCH_DURATION (s, 8), BENCH_CONNECTIONS (32), BENCH_PIPELINE (16), BENCH_SIZE (bytes, 128),
 * BENCH_CLIENT_THREADS (2), BENCH_IO_THREADS (io_threads_per_reactor, 1), BENCH_NODE_ARGS (flags for the Sluice
 * process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 * Prints a table and writes bench/results/websocket-<time>.json. Not part of `npm run bench`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import WebSocket, { WebSocketServer } from 'ws';
import { stringify } from 'smol-toml';
import { portFree, waitPort } from './lib/ports.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
const env = (k: string, d: number): number => (process.env[k] !== undefined ? Number(process.env[k]) : d);
const DURATION = env('BENCH_DURATION', 8);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const PIPELINE = env('BENCH_PIPELINE', 16);
const SIZE = env('BENCH_SIZE', 128);
const CLIENT_THREADS = env('BENCH_CLIENT_THREADS', 2);
const IO_THREADS = env('BENCH_IO_THREADS', 1);

interface LoadTask { readonly url: string; readonly connections: number; readonly pipeline: number; readonly size: number; readonly seconds: number }
interface LoadResult { readonly echoes: number; readonly errors: number; readonly closed: number }

// ---- roles of this file: the backend process, a client worker, the driver ----------------------------

if (process.argv[2] === 'backend') {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  server.on('connection', (ws) => {
    ws.on('error', () => {});
    ws.on('message', (m: Buffer, isBinary: boolean) => ws.send(m, { binary: isBinary }));
  });
  server.on('listening', () => process.stdout.write(`${(server.address() as net.AddressInfo).port}\n`));
} else if (!isMainThread) {
  void runLoad(workerData as LoadTask).then((r) => parentPort!.postMessage(r));
} else {
  main().catch((err: unknown) => {
    process.stderr.write(`bench/websocket: ${(err as Error).message}\n`);
    process.exitCode = 1;
  });
}

/** In a worker: `connections` clients, each with `pipeline` messages in flight, for `seconds`. */
async function runLoad(task: LoadTask): Promise<LoadResult> {
  // A JSON object of `size` bytes: the dispatch sequence scenario parses it.
  const text = `{"k":"v","p":"${'a'.repeat(Math.max(0, task.size - 16))}"}`;
  let echoes = 0;
  let errors = 0;
  let closed = 0;
  let running = true;
  const sockets = await Promise.all(Array.from({ length: task.connections }, () => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(task.url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  })));
  for (const ws of sockets) {
    ws.on('error', () => { errors++; });
    ws.on('close', () => { if (running) closed++; });
    ws.on('message', () => {
      echoes++;
      if (running) ws.send(text);
    });
  }
  for (const ws of sockets) for (let i = 0; i < task.pipeline; i++) ws.send(text);
  await new Promise((r) => setTimeout(r, task.seconds * 1000));
  running = false;
  const counted = echoes;
  for (const ws of sockets) ws.terminate();
  return { echoes: counted, errors, closed };
}

// ---- the driver -------------------------------------------------------------------------------------

function startBackend(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'backend'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve({ child, port: Number(d.toString().trim()) }));
    child.once('exit', (code) => reject(new Error(`backend exited with ${code}`)));
  });
}

const API = (name: string, context: string, backend: string): string => `name = "${name}"
context = "${context}"
version = "1.0.0"
type = "WS"
lifecycle_state = "PUBLISHED"
throttling_policy = "Unlimited"
[endpoints]
production = "${backend}"
[[resources]]
verb = "GET"
uri_template = "/*"
auth_type = "None"
throttling_policy = "Unlimited"
`;

/** A dispatchSeq that reads every message (builds its JSON) and lets it pass. */
const READING_DISPATCH = `<sequence xmlns="http://ws.apache.org/ns/synapse" name="dispatchSeq">
  <filter source="json-eval($.k)" regex="drop-me"><then><drop/></then></filter>
</sequence>`;

function makeHome(offset: number, backendUrl: string, withSequence: boolean): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-ws-'));
  fs.mkdirSync(path.join(home, 'repository/conf'), { recursive: true });
  fs.writeFileSync(path.join(home, 'repository/conf/deployment.toml'), stringify({
    server: { hostname: 'localhost', offset, server_role: 'default' },
    super_admin: { username: 'admin', password: 'admin', create_admin_account: true },
    passthru_http: { io_threads_per_reactor: IO_THREADS },
    transport: { passthru_https: { listener: { enable: false } } },
    sluice: { log: { level: 'warn' } },
  }));
  const apis = path.join(home, 'repository/deployment/server/apis');
  fs.mkdirSync(apis, { recursive: true });
  fs.writeFileSync(path.join(apis, 'bench-ws.toml'), API('BenchWs', '/benchws', backendUrl));
  if (withSequence) {
    const seqs = path.join(home, 'repository/deployment/server/synapse-configs/default/sequences');
    fs.mkdirSync(seqs, { recursive: true });
    fs.writeFileSync(path.join(seqs, 'dispatchSeq.xml'), READING_DISPATCH);
  }
  return home;
}

async function freeOffset(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const o = 20000 + Math.floor(Math.random() * 20000);
    if ((await Promise.all([8280 + o, 9443 + o, 9763 + o].map(portFree))).every(Boolean)) return o;
  }
  throw new Error('no free port offset');
}

/** Starts `sluice start` on a throwaway home; resolves with the gateway URL and a stop function. */
async function startSluice(backendUrl: string, withSequence: boolean): Promise<{ url: string; stop: () => Promise<void> }> {
  const offset = await freeOffset();
  const home = makeHome(offset, backendUrl, withSequence);
  const nodeArgs = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  // Without node flags of the bench's own, the script itself (its shebang's flags apply, as for an operator).
  const script = path.join(ROOT, 'bin/sluice.js');
  const child = nodeArgs.length
    ? spawn(process.execPath, [...nodeArgs, script, 'start', '--home', home], { stdio: ['ignore', 'ignore', 'inherit'] })
    : spawn(script, ['start', '--home', home], { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitPort(8280 + offset, 40000);
  // The APIs deploy as the gateway starts; give the io threads a moment.
  await new Promise((r) => setTimeout(r, 300));
  return {
    url: `ws://127.0.0.1:${8280 + offset}/benchws/1.0.0`,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => { fs.rmSync(home, { recursive: true, force: true }); resolve(); });
      child.kill('SIGTERM');
    }),
  };
}

async function load(url: string): Promise<{ msgs: number; errors: number; closed: number }> {
  const per = Math.max(1, Math.floor(CONNECTIONS / CLIENT_THREADS));
  const workers = Array.from({ length: CLIENT_THREADS }, () => new Promise<LoadResult>((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: { url, connections: per, pipeline: PIPELINE, size: SIZE, seconds: DURATION } satisfies LoadTask });
    w.once('message', (r: LoadResult) => { resolve(r); void w.terminate(); });
    w.once('error', reject);
  }));
  const rs = await Promise.all(workers);
  const echoes = rs.reduce((a, r) => a + r.echoes, 0);
  return { msgs: Math.round(echoes / DURATION), errors: rs.reduce((a, r) => a + r.errors, 0), closed: rs.reduce((a, r) => a + r.closed, 0) };
}

interface Row { readonly scenario: string; readonly echoesPerSec: number; readonly ratio: number; readonly mbPerSec: number; readonly errors: number }

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist/engine/cli/main.js'))) throw new Error('run `npm run build` first');
  const backend = await startBackend();
  const backendUrl = `ws://127.0.0.1:${backend.port}`;
  process.on('exit', () => { backend.child.kill('SIGKILL'); });
  const rows: Row[] = [];
  const row = (scenario: string, r: { msgs: number; errors: number; closed: number }, direct: number): Row => ({
    scenario, echoesPerSec: r.msgs, ratio: direct > 0 ? Math.round((r.msgs / direct) * 1000) / 1000 : 0,
    mbPerSec: Math.round(((r.msgs * SIZE * 2) / (1024 * 1024)) * 10) / 10, errors: r.errors + r.closed,
  });
  try {
    // Warm up the backend and the clients' JIT, then measure.
    await load(backendUrl);
    const direct = await load(backendUrl);
    rows.push(row('direct to the backend', direct, direct.msgs));
    for (const [name, withSeq] of [['through Sluice (relay)', false], ['through Sluice (dispatchSeq reads each message)', true]] as const) {
      const gw = await startSluice(backendUrl, withSeq);
      try {
        await load(gw.url);
        rows.push(row(name, await load(gw.url), direct.msgs));
      } finally {
        await gw.stop();
      }
    }
  } finally {
    backend.child.kill('SIGTERM');
  }
  const head = ['scenario', 'echoes/s', 'vs direct', 'MB/s (both ways)', 'errors'];
  const table = [head, ...rows.map((r) => [r.scenario, String(r.echoesPerSec), r.ratio.toFixed(3), String(r.mbPerSec), String(r.errors)])];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  process.stdout.write(`\nWebSocket relay: ${CONNECTIONS} connections x ${PIPELINE} in flight, ${SIZE}-byte text messages, ${DURATION} s per run, `
    + `${CLIENT_THREADS} client threads, ${IO_THREADS} io thread(s), ${os.cpus().length} cores\n`
    + '(an echo is two relayed messages: client -> backend and back)\n\n');
  process.stdout.write(table.map(line).join('\n') + '\n');
  const out = path.join(ROOT, 'bench/results', `websocket-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({
    bench: 'websocket', at: new Date().toISOString(), node: process.version, cores: os.cpus().length,
    params: { duration: DURATION, connections: CONNECTIONS, pipeline: PIPELINE, size: SIZE, clientThreads: CLIENT_THREADS, ioThreads: IO_THREADS },
    rows,
  }, null, 2) + '\n');
  process.stdout.write(`\nwritten ${path.relative(process.cwd(), out)}\n`);
}
