import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { PROJECT, cleanupAll, rssOf, startNginxBackend } from './lib/products.js';
import { startEchoBackend } from './lib/echo-backend.js';
import { CpuMeter } from './lib/proc-cpu.js';
import { Progress } from './lib/progress.js';
import { cpuTable, rssLine, targetLines, throughputTable } from './lib/report.js';
import { resultCharts } from './lib/result-charts.js';
import { SCENARIO_IDS, clean, medianRound, type BenchResults, type Measurement, type NginxPairs, type Round, type ScenarioId, type SecuredPairs } from './lib/results.js';
import { evaluateTargets } from './lib/targets.js';
import { ensurePrograms, versionOf } from './lib/tools.js';
import { runH2load } from './lib/h2load.js';
import { runWrk } from './lib/wrk.js';
import { startFastify } from './peers/fastify.js';
import { startFloorProxy } from './peers/floor.js';
import { startHaproxy } from './peers/haproxy.js';
import { startNginxProxy } from './peers/nginx.js';
import { PROXIES, type Peer, type ProxyId } from './peers/peer.js';
import { startSluicePeer, type SluicePeer } from './peers/sluice.js';

/**
 * `npm run bench`: Sluice and its peers in one run on one machine, every figure a same-run ratio
 * (docs/performance.md). The peers, started and stopped here: the direct backend (nginx), nginx as a
 * reverse proxy, HAProxy pass-through and secured (jwt_verify + a stick-table rate limit), the fastify stack
 * pass-through and secured (@fastify/jwt + @fastify/rate-limit + @fastify/http-proxy), the floor of Sluice's
 * own stack (bench/floor-proxy.ts), and Sluice pass-through and secured (JWT + subscription + throttling).
 * wrk drives each load but the warm HTTPS one, which h2load drives (lib/h2load.ts); the CPU of each proxy's own processes comes from /proc around each measured load.
 *
 * Rounds: every load is measured BENCH_ROUNDS times, the whole plan once per round (A, B, C..., then A, B,
 * C... again), and the round with the median requests/s is the load's figure (its CPU per call and latency
 * with it; all rounds' requests/s are kept in the results). On this 2-core virtual machine the same load
 * measured a minute apart moved by 15 to 25% (stop 38: 40 250 and 57 248 requests/s for the same secured
 * load), so a ratio of two single runs measured minutes apart said as much about the machine as about the
 * proxies. A drift that slows one round is outvoted by the other two.
 *
 * Environment:
 *   BENCH_ROUNDS       rounds per load (default 3; BENCH_QUICK 1)
 *   BENCH_DURATION     seconds per measured round of a load (default 4; BENCH_QUICK 1)
 *   BENCH_WARMUP       seconds of warm-up load before each round (default 1)
 *   BENCH_PEER_WARMUP  seconds of load on each proxy once it has started, before any load is measured: the
 *                      JIT of the Node proxies settles (fastify needs about 5 s; default 5; BENCH_QUICK 2)
 *   BENCH_PAIRS        back-to-back pairs after the rounds, which decide the targets whose two loads sit near
 *                      each other: Sluice's pass-through and secured loads (lib/results.ts SecuredPairs), and
 *                      Sluice's and nginx's POST 10 KB, and GET at 2 threads (NginxPairs) (default 7;
 *                      BENCH_QUICK 1; 0: none)
 *   BENCH_THREADS      io threads / workers / HAProxy threads to try (default "1,2"; BENCH_QUICK "1")
 *   BENCH_CONNECTIONS  connections of the pass-through GET sweep (default "100,1000"; BENCH_QUICK "100")
 *   BENCH_REF_CONNECTIONS  connections of every other scenario but the 1 MiB ones (default 100)
 *   BENCH_SCENARIOS    which scenarios (default all): get, get-secured, get-bytes, get-jwt, get-mediated, post-10k,
 *                      upload-1m, download-1m, https-echo, https-echo-warm
 *   BENCH_PROXIES      which proxies (default all): direct, nginx, haproxy, fastify, floor, sluice
 *   BENCH_ACCESS_LOG   "off" turns Sluice's access log off (default on, as the default home ships it)
 *   BENCH_QUICK=1      a smoke run (under two minutes): short loads, 1 thread, 100 connections
 * Output: the tables and one line per target of issue 20 on the terminal; bench/results/<time>.json and
 * latest.json; the charts as bench/results/bench-{rps,cpu}-t<threads>.svg. `npm run bench:docs` puts a run
 * into docs/performance.md.
 */
const env = (k: string): string | undefined => process.env[k] || undefined;
const QUICK = env('BENCH_QUICK') === '1';
const ROUNDS = Number(env('BENCH_ROUNDS') ?? (QUICK ? 1 : 3));
const PAIRS = Number(env('BENCH_PAIRS') ?? (QUICK ? 1 : 7));
const DURATION = Number(env('BENCH_DURATION') ?? (QUICK ? 1 : 4));
const WARMUP = Number(env('BENCH_WARMUP') ?? 1);
const PEER_WARMUP = Number(env('BENCH_PEER_WARMUP') ?? (QUICK ? 2 : 5));
const THREADS = (env('BENCH_THREADS') ?? (QUICK ? '1' : '1,2')).split(',').map(Number);
const REF = Number(env('BENCH_REF_CONNECTIONS') ?? 100);
const CONNECTIONS = [...new Set([REF, ...(env('BENCH_CONNECTIONS') ?? (QUICK ? '100' : '100,1000')).split(',').map(Number)])].sort((a, b) => a - b);
const ONLY_SCENARIOS = env('BENCH_SCENARIOS')?.split(',') ?? SCENARIO_IDS;
const ONLY_PROXIES = env('BENCH_PROXIES')?.split(',') ?? [...PROXIES];
const ACCESS_LOG = env('BENCH_ACCESS_LOG') !== 'off';
/** The warm HTTPS load is h2load's; the bench needs h2load only when it runs. */
const USES_H2LOAD = ONLY_SCENARIOS.includes('https-echo-warm');
/** 1 MiB transfers run at fewer connections: 20 of them already fill the loopback's share of two cores. */
const BIG_CONNECTIONS = Math.min(REF, 20);

/** The knobs, checked before anything starts. */
function checkKnobs(): void {
  for (const s of ONLY_SCENARIOS) if (!(SCENARIO_IDS as string[]).includes(s)) throw new Error(`BENCH_SCENARIOS: no scenario ${s} (${SCENARIO_IDS.join(', ')})`);
  for (const p of ONLY_PROXIES) if (!(PROXIES as readonly string[]).includes(p)) throw new Error(`BENCH_PROXIES: no proxy ${p} (${PROXIES.join(', ')})`);
  if (![ROUNDS, PAIRS, DURATION, WARMUP, PEER_WARMUP, REF, ...THREADS, ...CONNECTIONS].every((n) => Number.isInteger(n) && n >= 0) || ROUNDS < 1 || DURATION < 1 || REF < 1 || THREADS.some((t) => t < 1) || CONNECTIONS.some((c) => c < 1)) {
    throw new Error('BENCH_ROUNDS, BENCH_PAIRS, BENCH_DURATION, BENCH_WARMUP, BENCH_PEER_WARMUP, BENCH_THREADS, BENCH_CONNECTIONS and BENCH_REF_CONNECTIONS take whole numbers (rounds, a duration, threads and connections of 1 or more)');
  }
}

const BACKEND = 18990;
const ECHO = 18989;
const port = (threads: number, n: number): number => 18991 + threads * 10 + n;
const OFFSET = 700;

const BODY_10K = Buffer.alloc(10 * 1024, 120);
const BODY_1M = Buffer.alloc(1024 * 1024, 121);
/** The reference scenario's 1 KiB JSON payload: `{"payload":"xx...x"}`, 1024 bytes. */
const BODY_1K_JSON = Buffer.from(JSON.stringify({ payload: 'x'.repeat(1024 - '{"payload":""}'.length) }));

/** Which proxies take part in each scenario: the floor proxies GETs only; the Sluice-only rows have no peer. */
const SCENARIO_PROXIES: Record<ScenarioId, readonly ProxyId[]> = {
  'get': PROXIES,
  'get-secured': ['haproxy', 'fastify', 'sluice'],
  'get-bytes': ['sluice'],
  'get-jwt': ['sluice'],
  'get-mediated': ['sluice'],
  'post-10k': ['direct', 'nginx', 'haproxy', 'fastify', 'sluice'],
  'upload-1m': ['direct', 'nginx', 'haproxy', 'fastify', 'sluice'],
  'download-1m': ['direct', 'nginx', 'haproxy', 'fastify', 'sluice'],
  'https-echo': ['sluice'],
  'https-echo-warm': ['sluice'],
};

interface Load { readonly scenario: ScenarioId; readonly proxy: ProxyId; readonly connections: number }

/** The loads of one thread count, in the order they run. */
function plan(): Load[] {
  const loads: Load[] = [];
  for (const scenario of SCENARIO_IDS) {
    if (!ONLY_SCENARIOS.includes(scenario)) continue;
    const conns = scenario === 'get' ? CONNECTIONS : scenario === 'upload-1m' || scenario === 'download-1m' ? [BIG_CONNECTIONS] : [REF];
    for (const connections of conns) {
      for (const proxy of SCENARIO_PROXIES[scenario]) if (ONLY_PROXIES.includes(proxy)) loads.push({ scenario, proxy, connections });
    }
  }
  return loads;
}

interface Call { readonly url: string; readonly method: 'GET' | 'POST'; readonly body?: Buffer; readonly headers?: Record<string, string> }

/** What one call of a load is, on the peers of this thread count. */
function callOf(load: Load, peers: Map<ProxyId, Peer>, sluice: SluicePeer): Call {
  const p = peers.get(load.proxy)!;
  const auth = { authorization: `Bearer ${sluice.token}` };
  const octets = { 'content-type': 'application/octet-stream' };
  switch (load.scenario) {
    case 'get': return { url: `${p.passThrough}/x`, method: 'GET' };
    case 'get-secured': return { url: `${p.secured!}/x`, method: 'GET', headers: auth };
    // The secured call's bytes without its work: the token goes as Proxy-Authorization, which Sluice drops as
    // a hop-by-hop field (transport/header-rules.ts) without reading it, and the backend's /rl answers with
    // the X-RateLimit-* fields the secured call gets (bench/lib/products.ts).
    case 'get-bytes': return { url: `${sluice.passThrough}/rl`, method: 'GET', headers: { 'proxy-authorization': `Bearer ${sluice.token}` } };
    case 'get-jwt': return { url: `${sluice.jwtOnly}/x`, method: 'GET', headers: auth };
    case 'get-mediated': return { url: `${sluice.mediated}/x`, method: 'GET' };
    case 'post-10k': return { url: `${p.passThrough}/upload`, method: 'POST', body: BODY_10K, headers: octets };
    case 'upload-1m': return { url: `${p.passThrough}/upload`, method: 'POST', body: BODY_1M, headers: octets };
    case 'download-1m': return { url: `${p.passThrough}/1mb`, method: 'GET' };
    case 'https-echo':
    case 'https-echo-warm': return { url: sluice.httpsEcho, method: 'POST', body: BODY_1K_JSON, headers: { ...auth, 'content-type': 'application/json' } };
  }
}

/** One call before the loads: a peer that does not answer 2xx (or an echo that changes the body) stops the bench. */
async function probe(load: Load, call: Call): Promise<void> {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const res = await request(call.url, { method: call.method, dispatcher, ...(call.headers ? { headers: call.headers } : {}), ...(call.body ? { body: call.body } : {}) });
    const body = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${load.proxy}, ${load.scenario}: ${call.method} ${call.url} answered ${res.statusCode} ${body.toString().slice(0, 300)}`);
    if (load.scenario.startsWith('https-echo') && !body.equals(call.body!)) throw new Error(`the echo through ${call.url} did not return the body it was sent (${body.length} bytes back)`);
  } finally {
    await dispatcher.close();
  }
}

const measurements: Measurement[] = [];
const securedPairs: SecuredPairs[] = [];
const nginxPairs: NginxPairs[] = [];
const loadsPerThreadCount = plan();
const TOTAL_LOADS = loadsPerThreadCount.length * THREADS.length;

/**
 * Two loads measured back to back, PAIRS times, for one target: `first` goes first in the odd pairs (Sluice's
 * pass-through against its secured load, Sluice's load against nginx's); `keep` records the pairs'
 * requests/s in the results.
 */
interface PairSet { readonly first: Load; readonly second: Load; readonly keep: (threads: number, first: number[], second: number[]) => void }

/**
 * The pair sets of a thread count, of the loads in the plan: Sluice's pass-through GET at the reference
 * connections and its secured GET; Sluice's and nginx's POST 10 KB; at 2 threads, Sluice's and nginx's GET
 * at 100 connections.
 */
function pairSets(threads: number): PairSet[] {
  if (PAIRS === 0) return [];
  const find = (scenario: ScenarioId, proxy: ProxyId, connections?: number): Load | undefined =>
    loadsPerThreadCount.find((l) => l.scenario === scenario && l.proxy === proxy && (connections === undefined || l.connections === connections));
  const sets: PairSet[] = [];
  const pass = find('get', 'sluice', REF);
  const secured = find('get-secured', 'sluice');
  if (pass && secured) sets.push({ first: pass, second: secured, keep: (t, p, s) => securedPairs.push({ threads: t, connections: pass.connections, pass: p, secured: s }) });
  const againstNginx = (scenario: NginxPairs['scenario'], connections?: number): void => {
    const ours = find(scenario, 'sluice', connections);
    const theirs = find(scenario, 'nginx', connections);
    if (ours && theirs) sets.push({ first: ours, second: theirs, keep: (t, a, b) => nginxPairs.push({ scenario, threads: t, connections: ours.connections, sluice: a, nginx: b }) });
  };
  againstNginx('post-10k');
  if (threads === 2) againstNginx('get', 100);
  return sets;
}
const PAIR_LOADS = THREADS.reduce((n, t) => n + pairSets(t).length * PAIRS * 2, 0);
const progress = new Progress((TOTAL_LOADS * ROUNDS) + PAIR_LOADS, DURATION + WARMUP);

/**
 * The HTTPS rounds last at least 8 s: each wrk run opens its 100 TLS connections anew, and in a 4 s round
 * those handshakes set the p99 (13.2 ms against 7.6 in 8 s rounds, stop 38). The reference run it is set
 * beside lasted many minutes, where they weigh nothing.
 */
const TLS_ROUND_SECONDS = 8;
function durationOf(load: Load): number {
  return load.scenario.startsWith('https-echo') && !QUICK ? Math.max(DURATION, TLS_ROUND_SECONDS) : DURATION;
}

/**
 * The warm HTTPS load's warm-up, on the connections it then measures: long enough for its 100 TLS
 * handshakes and the collections that follow them (docs/performance.md, stop 44, under 1 s), as the
 * reference run measured after its own warm-up (lib/h2load.ts).
 */
const TLS_WARMUP_SECONDS = 2;

/** One measured load; `round` names it in the progress and output lines (`round 2 of 3`, `r2`; a pair's `pair 4 of 7`, `p4`). */
async function measureRound(load: Load, threads: number, peer: Peer, call: Call, round: number, pair = false): Promise<Round> {
  progress.next(`${load.scenario}, ${load.proxy}, ${threads} thread(s), ${load.connections} connections, ${pair ? 'pair' : 'round'} ${round} of ${pair ? PAIRS : ROUNDS}`);
  const o = { url: call.url, connections: load.connections, durationSec: durationOf(load), method: call.method, ...(call.body ? { body: call.body } : {}), ...(call.headers ? { headers: call.headers } : {}) };
  const warm = load.scenario === 'https-echo-warm';
  if (WARMUP > 0 && !warm) await runWrk({ ...o, durationSec: WARMUP });
  let peak = 0;
  const pid = load.proxy === 'sluice' ? peer.pids[0]! : 0;
  const cpu = new CpuMeter(peer.pids);
  const sample = pid ? { sample: () => { peak = Math.max(peak, rssOf(pid)); } } : {};
  // The warm load's CPU is counted from the end of its warm-up, as its calls are.
  if (!warm) cpu.start();
  const result = warm ? await runH2load({ ...o, ...sample, warmupSec: TLS_WARMUP_SECONDS, onMeasured: () => cpu.start() }) : await runWrk({ ...o, ...sample });
  const perCall = cpu.stop(result.requests);
  progress.finished();
  const l = result.latencyMs;
  const c = perCall ? `  cpu ${(perCall.userUs + perCall.kernelUs).toFixed(1)} µs/call (user ${perCall.userUs.toFixed(1)}, kernel ${perCall.kernelUs.toFixed(1)})` : '';
  process.stdout.write(`  ${load.scenario.padEnd(13)} ${load.proxy.padEnd(8)} t=${threads} c=${String(load.connections).padEnd(5)} ${pair ? 'p' : 'r'}${round} ${result.requestsPerSec.toFixed(0).padStart(7)} req/s  p50 ${l.p50.toFixed(2)} p99 ${l.p99.toFixed(2)} p99.9 ${l.p999.toFixed(2)} ms${c}${result.non2xx || result.errors ? `  (non-2xx ${result.non2xx}, errors ${result.errors})` : ''}\n`);
  return { scenario: load.scenario, proxy: load.proxy, threads, connections: load.connections, result, cpu: perCall, ...(pid ? { peakRssMiB: peak / 1024 / 1024 } : {}) };
}

async function runThreads(threads: number, direct: Peer): Promise<void> {
  process.stdout.write(`\n== ${threads} io thread(s) / worker(s) / HAProxy thread(s)\n`);
  const wanted = new Set(loadsPerThreadCount.map((l) => l.proxy));
  // Sluice first: its signing key is what HAProxy and fastify verify tokens with, and its token is every secured call's.
  const sluice = await startSluicePeer({ offset: OFFSET + threads * 10, ioThreads: threads, backend: `http://127.0.0.1:${BACKEND}`, echoBackend: `http://127.0.0.1:${ECHO}`, accessLog: ACCESS_LOG });
  const peers = new Map<ProxyId, Peer>([['direct', direct], ['sluice', sluice]]);
  try {
    if (wanted.has('nginx')) peers.set('nginx', await startNginxProxy(port(threads, 0), BACKEND, threads));
    if (wanted.has('haproxy')) peers.set('haproxy', await startHaproxy({ threads, passPort: port(threads, 1), securedPort: port(threads, 2), upstream: BACKEND, publicKeyPem: sluice.publicKeyPem }));
    if (wanted.has('fastify')) peers.set('fastify', await startFastify({ port: port(threads, 3), upstream: BACKEND, workers: threads, publicKeyPem: sluice.publicKeyPem }));
    if (wanted.has('floor')) peers.set('floor', await startFloorProxy(port(threads, 4), BACKEND, threads));
    for (const load of loadsPerThreadCount) await probe(load, callOf(load, peers, sluice));
    if (PEER_WARMUP > 0) {
      process.stdout.write(`warming each proxy up for ${PEER_WARMUP} s\n`);
      for (const [id, p] of peers) {
        if (!wanted.has(id)) continue;
        for (const side of [p.passThrough, p.secured]) {
          if (side) await runWrk({ url: `${side}/x`, connections: REF, durationSec: PEER_WARMUP, ...(side === p.secured ? { headers: { authorization: `Bearer ${sluice.token}` } } : {}) });
        }
      }
    }
    const rounds = loadsPerThreadCount.map((): Round[] => []);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, load] of loadsPerThreadCount.entries()) rounds[i]!.push(await measureRound(load, threads, peers.get(load.proxy)!, callOf(load, peers, sluice), round));
    }
    for (const r of rounds) measurements.push(medianRound(r));
    for (const set of pairSets(threads)) set.keep(threads, ...await measurePairs(threads, set, peers, sluice));
  } finally {
    for (const [id, p] of peers) if (id !== 'direct') await p.stop();
  }
}

/**
 * A pair set's two loads back to back, PAIRS times, the order alternating (the first load first, then the
 * second first...): a target's ratio from loads seconds apart (lib/results.ts SecuredPairs, NginxPairs).
 * A pair with errors or non-2xx answers on either side is left out, and said. Requests/s of the kept
 * pairs, the first load's and the second's.
 */
async function measurePairs(threads: number, { first, second }: PairSet, peers: Map<ProxyId, Peer>, sluice: SluicePeer): Promise<[number[], number[]]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 1; i <= PAIRS; i++) {
    const order = i % 2 === 1 ? [first, second] : [second, first];
    const got = new Map<Load, Round>();
    for (const load of order) got.set(load, await measureRound(load, threads, peers.get(load.proxy)!, callOf(load, peers, sluice), i, true));
    const x = got.get(first)!;
    const y = got.get(second)!;
    if (!clean(x) || !clean(y)) { process.stdout.write(`  pair ${i} left out: a side saw errors or non-2xx answers\n`); continue; }
    a.push(x.result.requestsPerSec);
    b.push(y.result.requestsPerSec);
  }
  return [a, b];
}

function commandLine(): string {
  const knobs = Object.keys(process.env).filter((k) => k.startsWith('BENCH_') && process.env[k]).sort().map((k) => `${k}=${process.env[k]}`);
  return [...knobs, 'npm run bench'].join(' ');
}

function machine(): Record<string, string> {
  const cpus = os.cpus();
  return {
    cores: `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    'load average at start': os.loadavg().map((l) => l.toFixed(2)).join(' '),
    node: process.version,
    nginx: versionOf('nginx', ['-v']).replace(/^nginx version: nginx\//, ''),
    haproxy: versionOf('haproxy', ['-v']).replace(/^HAProxy version (\S+).*/, '$1'),
    wrk: versionOf('wrk', ['--version']).replace(/^wrk (\S+).*/, '$1'),
    ...(USES_H2LOAD ? { h2load: versionOf('h2load', ['--version']).replace(/^h2load nghttp2\/(\S+).*/, '$1') } : {}),
  };
}

async function main(): Promise<void> {
  checkKnobs();
  ensurePrograms(['nginx', 'haproxy', 'wrk', ...(USES_H2LOAD ? ['h2load'] : [])]);
  const started = machine();
  process.stdout.write(`Sluice benchmark: ${TOTAL_LOADS} loads, each in ${ROUNDS} round(s) of ${DURATION} s after ${WARMUP} s of warm-up (the median round counts)${PAIR_LOADS ? `, then ${PAIRS} back-to-back pairs of each target decided by pairs (Sluice pass-through and secured, Sluice and nginx)` : ''}; threads ${THREADS.join(',')}; GET connections ${CONNECTIONS.join(',')}, others ${REF} (1 MiB: ${BIG_CONNECTIONS}); Sluice's access log ${ACCESS_LOG ? 'on' : 'off'}\n`);
  const backend = await startNginxBackend(BACKEND);
  await startEchoBackend(ECHO);
  const direct: Peer = { id: 'direct', pids: [backend.pid!], passThrough: `http://127.0.0.1:${BACKEND}`, stop: async () => {} };
  for (const threads of THREADS) await runThreads(threads, direct);
  const results: BenchResults = {
    version: 2, at: new Date().toISOString(), command: commandLine(), quick: QUICK, rounds: ROUNDS, durationSec: DURATION, warmupSec: WARMUP,
    threads: THREADS, connections: CONNECTIONS, refConnections: REF, accessLog: ACCESS_LOG, machine: started, measurements,
    ...(securedPairs.length ? { securedPairs } : {}),
    ...(nginxPairs.length ? { nginxPairs } : {}),
  };
  const dir = path.join(PROJECT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = results.at.replace(/[:.]/g, '-');
  const json = JSON.stringify(results, null, 2) + '\n';
  fs.writeFileSync(path.join(dir, `${stamp}.json`), json);
  fs.writeFileSync(path.join(dir, 'latest.json'), json);
  const charts = resultCharts(results);
  for (const [name, svg] of Object.entries(charts)) fs.writeFileSync(path.join(dir, name), svg);
  process.stdout.write(['', 'Requests/s (p99 ms), same run:', '', throughputTable(results), '', 'CPU µs per call of each proxy\'s own processes, total (user + kernel):', '', cpuTable(results), '',
    `Peak gateway RSS: ${rssLine(results)}`, '', 'Issue 20\'s targets:', targetLines(evaluateTargets(results)), '',
    `results: bench/results/${stamp}.json, bench/results/latest.json, ${Object.keys(charts).map((n) => `bench/results/${n}`).join(', ')}`,
    'docs/performance.md from this run: npm run bench:docs', ''].join('\n'));
}

main().then(() => { cleanupAll(); process.exit(0); }, (err: Error) => { process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`); cleanupAll(); process.exit(1); });
