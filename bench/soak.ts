import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { runLoad, type LoadResult } from './lib/load.js';
import {
  PROJECT, benchApiToml, cleanupAll, nginxAvailable, openFds, rssOf, spawnTracked, startNginxBackend, startSluice, stopTracked, tmpDir, waitPort, type SluiceHandle,
} from './lib/products.js';
import { startNginxBig } from './lib/soak-nginx.js';
import { FaultClient, SlowClients, type FaultClientStats, type FaultExpectation, type SlowClientStats } from './lib/soak-clients.js';
import { establishedTo, portInUse, summariseLogs, type LogSummary } from './lib/soak-probes.js';
import { byLabel, gauges, scrape, sum, type GatewayGauges, type PromSample } from './lib/soak-metrics.js';

/**
 * `npm run soak` (docs/soak.md): measures the gateway's maximum on a pass-through API, then drives 80% of it
 * for SOAK_MINUTES with a share of calls to APIs whose backends fail and with slow clients, then checks that
 * the gateway caused no error and that RSS, open file descriptors, backend connection pools and the worker
 * pool come back to their baseline. Exit code 0 on pass, 1 on fail (the reasons are printed).
 *
 * Environment: SOAK_MINUTES (10), SOAK_THREADS (io threads, 1), SOAK_CONNECTIONS (100), SOAK_FAIL_SHARE
 * (0.05), SOAK_SLOW_CLIENTS (20). Output: a table, bench/results/soak-<time>.json.
 */
const num = (k: string, d: number): number => {
  const v = process.env[k];
  if (v === undefined || v === '') return d;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${k}=${v}: expected a non-negative number`);
  return n;
};
const MINUTES = num('SOAK_MINUTES', 10);
const THREADS = Math.max(1, Math.round(num('SOAK_THREADS', 1)));
const CONNECTIONS = Math.max(1, Math.round(num('SOAK_CONNECTIONS', 100)));
const FAIL_SHARE = Math.min(0.5, num('SOAK_FAIL_SHARE', 0.05));
const SLOW_CLIENTS = Math.round(num('SOAK_SLOW_CLIENTS', 20));

const LOAD_SHARE = 0.8;
const MAX_SECONDS = 10;
/** [passthru_http] http.socket.timeout for the soak's gateway: the slow backend answers after SLOW_BACKEND_MS. */
const SOCKET_TIMEOUT_MS = 3000;
const SLOW_BACKEND_MS = 10_000;
/** Client-side limit: an answer later than this is a hang (gateway-caused). */
const CLIENT_TIMEOUT_MS = 15_000;
/** Pass criteria after the load stops (docs/soak.md). */
const RSS_SLACK_BYTES = 64 * 1024 * 1024;
const FD_SLACK = 8;
const SETTLE_MS = 30_000;
const SAMPLE_MS = 5000;

const BACKEND = 18980;
const RESET = 18981;
const SLOW = 18982;
const GARBAGE = 18983;
const CLOSED = 18984;
/** nginx with a large file for the slow clients (bench/lib/soak-nginx.ts). */
const BIG = 18985;
const BIG_MIB = 16;
const OFFSET = 850;
const GW_HTTP = 8280 + OFFSET;
const SERVLET_HTTP = 9763 + OFFSET;

const API = (name: string, context: string, port: number): string => benchApiToml({ name, context, backend: `http://127.0.0.1:${port}` });

/** The failing APIs, their backends and the fault each call must end with (docs/errors.md: base + state). */
const FAILING: readonly { key: string; api: string; context: string; port: number; expect: FaultExpectation; what: string }[] = [
  { key: 'closed', api: 'SoakClosed', context: '/closed', port: CLOSED, what: 'backend port closed', expect: { status: 503, codes: [101503] } },
  { key: 'reset', api: 'SoakReset', context: '/reset', port: RESET, what: 'backend resets after the request', expect: { status: 502, codes: [101508] } },
  { key: 'slow', api: 'SoakSlow', context: '/slow', port: SLOW, what: `backend answers after ${SLOW_BACKEND_MS / 1000} s (socket timeout ${SOCKET_TIMEOUT_MS / 1000} s)`, expect: { status: 504, codes: [101507] } },
  { key: 'garbage', api: 'SoakGarbage', context: '/garbage', port: GARBAGE, what: 'backend answers non-HTTP bytes', expect: { status: 502, codes: [101509] } },
];

const FILES: Record<string, string> = {
  'repository/deployment/server/apis/soak-good.toml': API('SoakGood', '/good', BACKEND),
  'repository/deployment/server/apis/soak-slowc.toml': API('SoakSlowClients', '/slowc', BIG),
  'repository/deployment/server/apis/soak-stall.toml': API('SoakStall', '/stall', BIG),
  ...Object.fromEntries(FAILING.map((f) => [`repository/deployment/server/apis/soak-${f.key}.toml`, API(f.api, f.context, f.port)])),
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const MiB = (b: number): string => (b / 1024 / 1024).toFixed(1);
const log = (s: string): void => { process.stdout.write(s + '\n'); };

interface Sample {
  readonly tSec: number;
  readonly phase: string;
  readonly rss: number;
  readonly fds: number;
  readonly gauges: GatewayGauges | null;
  readonly backendEstablished: number | null;
}

interface Baseline { readonly rss: number; readonly fds: number; readonly gauges: GatewayGauges | null }

interface GoodResult {
  readonly targetRate: number;
  readonly durationSec: number;
  readonly requests: number;
  readonly achievedRate: number;
  readonly statuses: Record<string, number>;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly errorMessages: Record<string, number>;
  readonly latencyMs: { p50: number; p99: number; p999: number; max: number };
}

const t0 = Date.now();
const samples: Sample[] = [];
let sluice: SluiceHandle | null = null;
let gatewayExit: { code: number | null; signal: string | null; atSec: number } | null = null;
let metricsOk = true;

async function readGauges(): Promise<{ g: GatewayGauges; raw: PromSample[] } | null> {
  if (!metricsOk) return null;
  try { const raw = await scrape(SERVLET_HTTP); return { g: gauges(raw), raw }; } catch { return null; }
}

async function sample(phase: string): Promise<Sample> {
  const pid = sluice!.proc.pid!;
  const m = await readGauges();
  const s: Sample = { tSec: (Date.now() - t0) / 1000, phase, rss: rssOf(pid), fds: openFds(pid), gauges: m?.g ?? null, backendEstablished: establishedTo(BACKEND) };
  samples.push(s);
  return s;
}

const poolsQuiet = (g: GatewayGauges): boolean => Object.values(g.pools).every((p) => p.busy === 0 && p.connecting === 0 && p.waiting === 0);
const openToBackends = (g: GatewayGauges | null): number => Object.values(g?.pools ?? {}).reduce((a, p) => a + p.open, 0);

/** Waits until nothing is in flight and the backend pools are idle, then `quietMs` more. */
async function quiet(quietMs: number, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (Date.now() < end) {
    const m = await readGauges();
    if (!m || (m.g.inFlight === 0 && m.g.workerActive === 0 && poolsQuiet(m.g))) break;
    await sleep(500);
  }
  await sleep(quietMs);
}

/** The good API at a fixed overall rate with autocannon; every status and error message tallied. */
function driveGood(url: string, rate: number, durationSec: number): Promise<GoodResult> {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
  const statuses: Record<string, number> = {};
  const errorMessages: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    const inst = autocannon({ url, connections: CONNECTIONS, duration: durationSec, overallRate: Math.max(1, Math.round(rate)), pipelining: 1, timeout: CLIENT_TIMEOUT_MS / 1000 }, (err, r) => {
      if (err) { reject(err); return; }
      const ms = (p: number): number => h.getValueAtPercentile(p) / 1000;
      const out: GoodResult = {
        targetRate: rate, durationSec, requests: r.requests.total, achievedRate: r.requests.total / durationSec, statuses,
        non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, errorMessages,
        latencyMs: { p50: ms(50), p99: ms(99), p999: ms(99.9), max: h.maxValue / 1000 },
      };
      h.destroy();
      resolve(out);
    });
    inst.on('response', (_c: unknown, status: number, _b: number, rt: number) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      h.recordValue(Math.max(1, Math.round(rt * 1000)));
    });
    inst.on('reqError', (e: Error & { code?: string }) => { const k = e.code ?? e.message; errorMessages[k] = (errorMessages[k] ?? 0) + 1; });
    stopGood = () => (inst as unknown as { stop(): void }).stop();
  });
}
let stopGood: (() => void) | null = null;

/** The gateway's logs, summarised for the report (the home is deleted at exit). */
const gatewayLogs = (): LogSummary[] => (sluice ? summariseLogs(sluice.home) : []);

/** Before the soak proper: a gateway that exited ends the run at once, with its log. */
function exitedCheck(where: string): void {
  if (!gatewayExit) return;
  const tail = gatewayLogs().flatMap((l) => [`-- ${l.file}`, ...l.errors.slice(-10), ...l.tail]);
  throw new Error(`the gateway exited during ${where} (code ${gatewayExit.code}, signal ${gatewayExit.signal})\n${tail.join('\n')}`);
}

async function main(): Promise<number> {
  if (!nginxAvailable()) throw new Error('nginx is needed (apt-get install nginx)');
  const durationSec = Math.max(1, Math.round(MINUTES * 60));
  log(`Sluice soak: ${MINUTES} min at ${LOAD_SHARE * 100}% of the measured maximum, io threads ${THREADS}, ${CONNECTIONS} connections, ` +
    `${(FAIL_SHARE * 100).toFixed(1)}% of calls to failing backends, ${SLOW_CLIENTS} slow clients`);

  for (const p of [BACKEND, RESET, SLOW, GARBAGE, CLOSED, BIG, GW_HTTP, 8243 + OFFSET, 9443 + OFFSET, SERVLET_HTTP]) {
    if (await portInUse(p)) throw new Error(`port ${p} is in use (another soak or bench running?)`);
  }
  await startNginxBackend(BACKEND);
  await startNginxBig(BIG, BIG_MIB);
  const beDir = tmpDir('sluice-soak-be-');
  spawnTracked(process.execPath, [path.join(PROJECT, 'dist/bench/lib/soak-backends.js'), String(RESET), String(SLOW), String(GARBAGE), String(SLOW_BACKEND_MS)], { log: path.join(beDir, 'backends.log') });
  for (const p of [RESET, SLOW, GARBAGE]) await waitPort(p, 20_000);

  sluice = await startSluice({ offset: OFFSET, ioThreads: THREADS, files: FILES, conf: { passthru_http: { 'http.socket.timeout': SOCKET_TIMEOUT_MS } } });
  const pid = sluice.proc.pid!;
  sluice.proc.once('exit', (code, signal) => { gatewayExit = { code, signal, atSec: (Date.now() - t0) / 1000 }; stopGood?.(); });
  const base = `http://127.0.0.1:${GW_HTTP}`;
  // The API files are deployed once the port is open; wait for the good API to answer 200.
  for (let i = 0; ; i++) {
    const r = await fetch(`${base}/good/1.0.0/ready`).then((x) => x.status, () => 0);
    if (r === 200) break;
    if (i > 100) throw new Error(`the soak API does not answer 200 (last status ${r})`);
    await sleep(200);
  }
  metricsOk = (await readGauges().catch(() => null)) !== null;
  log(`gateway pid ${pid}, http ${GW_HTTP}, metrics ${metricsOk ? `http://127.0.0.1:${SERVLET_HTTP}/metrics` : 'NOT AVAILABLE (pool gauges unchecked)'}`);

  // Phase 1: maximum.
  log(`\n== phase 1: maximum (${CONNECTIONS} connections, 2 s warm-up + ${MAX_SECONDS} s)`);
  await runLoad({ url: `${base}/good/1.0.0/x`, connections: CONNECTIONS, durationSec: 2 });
  const max: LoadResult = await runLoad({ url: `${base}/good/1.0.0/x`, connections: CONNECTIONS, durationSec: MAX_SECONDS });
  log(`  max ${max.requestsPerSec.toFixed(0)} req/s, p99 ${max.latencyMs.p99.toFixed(2)} ms, non-2xx ${max.non2xx}, errors ${max.errors}`);
  exitedCheck('phase 1');
  const total = LOAD_SHARE * max.requestsPerSec;
  const failRate = FAIL_SHARE * total;
  const goodRate = total - failRate;
  const perFail = failRate / FAILING.length;
  const concurrencyFor = (key: string): number => key === 'slow'
    ? Math.max(2, Math.min(50, Math.ceil(perFail * (SOCKET_TIMEOUT_MS / 1000) * 1.5)))
    : Math.max(2, Math.min(16, Math.ceil(perFail * 0.05)));

  const makeFaultClients = (): FaultClient[] => FAILING.map((f) => new FaultClient(f.key, base, `${f.context}/1.0.0/x`, perFail, concurrencyFor(f.key), f.expect, CLIENT_TIMEOUT_MS));
  const slowOptions = { port: GW_HTTP, prefix: '/slowc/1.0.0', stallPrefix: '/stall/1.0.0', total: SLOW_CLIENTS, byteDelayMs: 40, readPauseMs: 50, stallMs: 20_000, bigPath: '/big' };

  // Phase 2: warm-up of every path (failing APIs, the large response), quiet, baseline.
  log(`\n== phase 2: warm-up of the failing paths (5 s), quiet, baseline`);
  const warm = makeFaultClients();
  for (const c of warm) c.start();
  for (let i = 0; i < 2; i++) await fetch(`${base}/slowc/1.0.0/big`).then((r) => r.arrayBuffer(), () => null);
  await sleep(5000);
  await Promise.all(warm.map((c) => c.stop()));
  await quiet(SOCKET_TIMEOUT_MS + 3000, 30_000);
  const bs: Sample[] = [];
  for (let i = 0; i < 3; i++) { bs.push(await sample('baseline')); await sleep(1000); }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const baseline: Baseline = { rss: median(bs.map((s) => s.rss)), fds: median(bs.map((s) => s.fds)), gauges: bs[bs.length - 1]!.gauges };
  const before = (await readGauges())?.raw ?? null;
  const warmBad = warm.flatMap((c) => Object.entries(c.stats.bad).map(([k, n]) => `${c.stats.name}: ${k} (${n})`));
  exitedCheck('phase 2');
  log(`  baseline RSS ${MiB(baseline.rss)} MiB, open fds ${baseline.fds}, backend connections ${openToBackends(baseline.gauges)}`);

  // Phase 3: the soak.
  log(`\n== phase 3: soak ${durationSec} s: good API ${goodRate.toFixed(0)} req/s, failing APIs ${FAILING.map((f) => `${f.key} ${perFail.toFixed(1)}/s (c=${concurrencyFor(f.key)})`).join(', ')}, ` +
    `slow clients ${SLOW_CLIENTS}`);
  const faultClients = makeFaultClients();
  const slow = new SlowClients(slowOptions);
  const peak = { rss: 0, fds: 0, inFlight: 0, workerActive: 0, workerWaiting: 0, pools: {} as Record<string, number> };
  const track = (s: Sample): void => {
    peak.rss = Math.max(peak.rss, s.rss);
    peak.fds = Math.max(peak.fds, s.fds);
    if (s.gauges) {
      peak.inFlight = Math.max(peak.inFlight, s.gauges.inFlight);
      peak.workerActive = Math.max(peak.workerActive, s.gauges.workerActive);
      peak.workerWaiting = Math.max(peak.workerWaiting, s.gauges.workerWaiting);
      for (const [k, p] of Object.entries(s.gauges.pools)) peak.pools[k] = Math.max(peak.pools[k] ?? 0, p.open);
    }
  };
  const soakStart = Date.now();
  const goodP = driveGood(`${base}/good/1.0.0/x`, goodRate, durationSec);
  for (const c of faultClients) c.start();
  slow.start();
  let lastPrint = 0;
  const printEvery = durationSec <= 120 ? 10 : 60;
  const sampler = (async () => {
    while (Date.now() - soakStart < durationSec * 1000 && !gatewayExit) {
      await sleep(SAMPLE_MS);
      if (gatewayExit) break;
      const s = await sample('soak');
      track(s);
      const el = (Date.now() - soakStart) / 1000;
      if (el - lastPrint >= printEvery - 0.5) {
        lastPrint = el;
        log(`  t=${el.toFixed(0).padStart(4)} s  RSS ${MiB(s.rss).padStart(6)} MiB  fds ${String(s.fds).padStart(4)}  in flight ${s.gauges?.inFlight ?? '?'}  ` +
          `backend conns ${s.gauges ? openToBackends(s.gauges) : s.backendEstablished ?? '?'}  slow client sockets ${slow.open}`);
      }
    }
  })();
  const good = await goodP;
  await sampler;
  const loadEnd = Date.now();
  log(`  load stopped after ${((loadEnd - soakStart) / 1000).toFixed(0)} s`);

  // Phase 4: stop everything, let the gateway settle, compare with the baseline.
  log(`\n== phase 4: settle (up to ${SETTLE_MS / 1000} s)`);
  await Promise.all(faultClients.map((c) => c.stop()));
  await slow.stop();
  const settleStart = loadEnd; // the settle time counts from the end of the good load, client shutdown included
  let settled: Sample | null = null;
  let settleOk = false;
  const settleCheck = (s: Sample): boolean => s.rss <= baseline.rss + RSS_SLACK_BYTES && s.fds <= baseline.fds + FD_SLACK &&
    (!s.gauges || (s.gauges.inFlight === 0 && s.gauges.workerActive === 0 && s.gauges.workerWaiting === 0 && poolsQuiet(s.gauges) && openToBackends(s.gauges) <= openToBackends(baseline.gauges)));
  while (!gatewayExit) {
    settled = await sample('settle');
    if (settleCheck(settled)) { settleOk = true; break; }
    if (Date.now() - settleStart > SETTLE_MS) break;
    await sleep(1000);
  }
  const settleSec = (Date.now() - settleStart) / 1000;
  const finalMetrics = metricsOk && !gatewayExit ? await scrape(SERVLET_HTTP).catch(() => null) : null;

  // Verdict.
  const reasons: string[] = [];
  const notes: string[] = [];
  if (gatewayExit) reasons.push(`the gateway exited at t=${gatewayExit.atSec.toFixed(0)} s (code ${gatewayExit.code}, signal ${gatewayExit.signal})`);
  if (max.errors || max.non2xx) reasons.push(`phase 1 (maximum): ${max.non2xx} non-2xx, ${max.errors} errors on the good API`);
  if (warmBad.length) reasons.push(`phase 2 (warm-up): failing APIs answered wrongly: ${warmBad.join('; ')}`);
  if (good.non2xx || good.errors || good.timeouts) {
    reasons.push(`good API: ${good.non2xx} non-2xx ${JSON.stringify(good.statuses)}, ${good.errors} errors, ${good.timeouts} timeouts ${JSON.stringify(good.errorMessages)}`);
  }
  if (good.achievedRate < 0.9 * goodRate) notes.push(`good API reached ${good.achievedRate.toFixed(0)} req/s of the ${goodRate.toFixed(0)} targeted (load generator or machine saturated)`);
  const fstats: FaultClientStats[] = faultClients.map((c) => c.stats);
  for (const f of fstats) {
    const bad = Object.entries(f.bad);
    if (bad.length) reasons.push(`failing API ${f.name}: ${bad.reduce((a, [, n]) => a + n, 0)} gateway-caused errors: ${bad.slice(0, 5).map(([k, n]) => `${k} (${n})`).join('; ')}`);
    if (f.sent === 0) reasons.push(`failing API ${f.name}: no call was sent`);
  }
  const ss: SlowClientStats = slow.stats;
  for (const k of ['slowSenders', 'slowReaders'] as const) {
    const st = ss[k];
    const failed = Object.entries(st.failed);
    if (failed.length) reasons.push(`${k}: ${failed.map(([r, n]) => `${r} (${n})`).join('; ')}`);
    if (ss.counts[k] > 0 && st.ok === 0) reasons.push(`${k}: no call completed`);
  }
  if (settled && !settleOk) {
    if (settled.rss > baseline.rss + RSS_SLACK_BYTES) reasons.push(`RSS ${MiB(settled.rss)} MiB ${settleSec.toFixed(0)} s after the load, baseline ${MiB(baseline.rss)} MiB + ${MiB(RSS_SLACK_BYTES)} allowed`);
    if (settled.fds > baseline.fds + FD_SLACK) reasons.push(`open fds ${settled.fds} ${settleSec.toFixed(0)} s after the load, baseline ${baseline.fds} + ${FD_SLACK} allowed`);
    const g = settled.gauges;
    if (g && (g.inFlight || g.workerActive || g.workerWaiting)) reasons.push(`not idle after the load: in flight ${g.inFlight}, worker pool active ${g.workerActive}, waiting ${g.workerWaiting}`);
    if (g && !poolsQuiet(g)) reasons.push(`backend pools not idle after the load: ${JSON.stringify(g.pools)}`);
    if (g && openToBackends(g) > openToBackends(baseline.gauges)) reasons.push(`backend connections ${openToBackends(g)} after the load, baseline ${openToBackends(baseline.gauges)}: ${JSON.stringify(g.pools)}`);
  }
  // Bounds during the soak: a backend pool never holds more connections than calls could be in flight to it.
  const goodBound = CONNECTIONS;
  const peakTo = (port: number): number => Object.entries(peak.pools).filter(([k]) => k.endsWith(`:${port}`)).reduce((a, [, v]) => a + v, 0);
  const goodPeak = peakTo(BACKEND);
  if (metricsOk && goodPeak > goodBound) reasons.push(`connections to the good backend peaked at ${goodPeak}, above the ${goodBound} calls that can be in flight to it`);
  if (metricsOk && peakTo(BIG) > SLOW_CLIENTS) reasons.push(`connections to the slow clients' backend peaked at ${peakTo(BIG)}, above the ${SLOW_CLIENTS} slow clients`);
  for (const f of FAILING) {
    const bound = concurrencyFor(f.key);
    if (peakTo(f.port) > bound) reasons.push(`connections to the ${f.key} backend peaked at ${peakTo(f.port)}, above its ${bound} client connections`);
  }
  let apiFaults: Record<string, Record<string, number>> = {};
  let apiStatuses: Record<string, Record<string, number>> = {};
  let transportErrors: Record<string, number> = {};
  let goodDelta: { statuses: Record<string, number>; faults: Record<string, number> } = { statuses: {}, faults: {} };
  if (finalMetrics) {
    for (const api of ['SoakGood', 'SoakSlowClients', 'SoakStall', ...FAILING.map((f) => f.api)]) {
      apiFaults[api] = byLabel(finalMetrics, 'sluice_gateway_faults_total', 'code', { api });
      apiStatuses[api] = byLabel(finalMetrics, 'sluice_gateway_requests_total', 'status', { api });
    }
    transportErrors = byLabel(finalMetrics, 'sluice_gateway_transport_errors_total', 'code');
    // The good API during the soak (deltas since the baseline): 200 only, except the calls autocannon abandons
    // when it stops (at most one per connection): 499 / 101507 "Connection canceled", the client's doing.
    const delta = (name: string, key: string): Record<string, number> => {
      const a = byLabel(finalMetrics, name, key, { api: 'SoakGood' });
      const b = before ? byLabel(before, name, key, { api: 'SoakGood' }) : {};
      return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)]).filter(([, v]) => (v as number) > 0));
    };
    goodDelta = { statuses: delta('sluice_gateway_requests_total', 'status'), faults: delta('sluice_gateway_faults_total', 'code') };
    const abandoned = goodDelta.statuses['499'] ?? 0;
    if (abandoned > CONNECTIONS) reasons.push(`gateway metrics: ${abandoned} good-API calls ended 499, more than the ${CONNECTIONS} autocannon can abandon when it stops`);
    const otherStatuses = Object.entries(goodDelta.statuses).filter(([st]) => st !== '200' && st !== '499');
    if (otherStatuses.length) reasons.push(`gateway metrics: the good API answered ${JSON.stringify(Object.fromEntries(otherStatuses))} during the soak`);
    const otherFaults = Object.entries(goodDelta.faults).filter(([c]) => c !== '101507');
    if (otherFaults.length || (goodDelta.faults['101507'] ?? 0) > abandoned) reasons.push(`gateway metrics: the good API counted faults ${JSON.stringify(goodDelta.faults)} during the soak (499s: ${abandoned})`);
    if (abandoned) notes.push(`good API: ${abandoned} calls in flight when autocannon stopped ended 499 / 101507 (the client left)`);
    const rejected = sum(finalMetrics, 'sluice_worker_pool_rejected_total');
    if (rejected > 0) reasons.push(`worker pool refused ${rejected} calls (503)`);
  } else if (metricsOk) notes.push('the final /metrics scrape failed');
  if (!metricsOk) notes.push('/metrics not available: backend pools, in-flight calls and the worker pool were not checked (backend connections counted with ss only)');
  if (ss.stalledReaders.attempts > 0) notes.push(`stalled readers (${slowOptions.stallMs / 1000} s without reading): ${ss.stalledReaders.ok} complete, ${JSON.stringify(ss.stalledReaders.failed)} (informational: the gateway may cut a client that stalls its backend longer than http.socket.timeout)`);
  if (ss.idleKeepAlive.idleClosedAfterMs.length) {
    const xs = ss.idleKeepAlive.idleClosedAfterMs;
    notes.push(`idle keep-alive client connections closed by the gateway after ${(Math.min(...xs) / 1000).toFixed(1)}-${(Math.max(...xs) / 1000).toFixed(1)} s idle (${xs.length} times)`);
  }
  // RSS trend over the second half of the soak (least squares), for long runs: a leak shows as a steady slope.
  const late = samples.filter((x) => x.phase === 'soak' && (x.tSec - (soakStart - t0) / 1000) >= durationSec / 2);
  let rssSlopeMiBPerMin: number | null = null;
  if (late.length >= 4) {
    const mx = late.reduce((a, x) => a + x.tSec, 0) / late.length;
    const my = late.reduce((a, x) => a + x.rss, 0) / late.length;
    const sxy = late.reduce((a, x) => a + (x.tSec - mx) * (x.rss - my), 0);
    const sxx = late.reduce((a, x) => a + (x.tSec - mx) ** 2, 0);
    rssSlopeMiBPerMin = sxx > 0 ? (sxy / sxx) * 60 / 1024 / 1024 : null;
  }
  const logSummary = gatewayLogs();
  for (const l of logSummary) {
    const serious = (l.levels['ERROR'] ?? 0) + (l.levels['FATAL'] ?? 0);
    if (serious) notes.push(`${l.file}: ${serious} ERROR/FATAL lines, first: ${l.errors[0] ?? ''}`);
  }
  const pass = reasons.length === 0;

  // Report.
  const row = (k: string, v: string): string => `  ${k.padEnd(44)} ${v}`;
  const lines = ['', `== soak report: ${pass ? 'PASS' : 'FAIL'}`,
    row('maximum (pass-through GET, c=' + CONNECTIONS + ')', `${max.requestsPerSec.toFixed(0)} req/s`),
    row('soak duration', `${durationSec} s`),
    row('good API target / achieved', `${goodRate.toFixed(0)} / ${good.achievedRate.toFixed(0)} req/s (${good.requests} calls)`),
    row('good API statuses', JSON.stringify(good.statuses)),
    row('good API errors / timeouts / non-2xx', `${good.errors} / ${good.timeouts} / ${good.non2xx}`),
    row('good API latency p50 / p99 / p99.9 / max', `${good.latencyMs.p50.toFixed(2)} / ${good.latencyMs.p99.toFixed(2)} / ${good.latencyMs.p999.toFixed(2)} / ${good.latencyMs.max.toFixed(1)} ms`),
  ];
  for (const f of fstats) {
    lines.push(row(`failing ${f.name} (${(f.sent / durationSec).toFixed(1)}/s of ${f.targetRate.toFixed(1)})`, `sent ${f.sent}, as documented ${f.ok}, gateway-caused ${Object.values(f.bad).reduce((a, n) => a + n, 0)}, answers ${JSON.stringify(f.answers)}`));
  }
  for (const k of ['slowSenders', 'slowReaders', 'stalledReaders', 'idleKeepAlive'] as const) {
    const st = ss[k];
    lines.push(row(`${k} (${ss.counts[k]} clients)`, `attempts ${st.attempts}, ok ${st.ok}, interrupted ${st.interrupted}, other ${JSON.stringify(st.failed)}`));
  }
  lines.push(row('RSS baseline / peak / after', `${MiB(baseline.rss)} / ${MiB(peak.rss)} / ${settled ? MiB(settled.rss) : '?'} MiB (allowed ${MiB(baseline.rss + RSS_SLACK_BYTES)})`));
  if (rssSlopeMiBPerMin !== null) lines.push(row('RSS trend, second half of the soak', `${rssSlopeMiBPerMin >= 0 ? '+' : ''}${rssSlopeMiBPerMin.toFixed(2)} MiB/min (${late.length} samples, informational)`));
  lines.push(row('open fds baseline / peak / after', `${baseline.fds} / ${peak.fds} / ${settled?.fds ?? '?'} (allowed ${baseline.fds + FD_SLACK})`));
  lines.push(row('backend connections baseline / after', `${openToBackends(baseline.gauges)} / ${settled ? openToBackends(settled.gauges) : '?'}`));
  lines.push(row('backend connections peak, by backend', JSON.stringify(peak.pools)));
  lines.push(row('in flight / worker active / waiting, peak', `${peak.inFlight} / ${peak.workerActive} / ${peak.workerWaiting}`));
  for (const l of logSummary) lines.push(row(`gateway log ${l.file}`, `${l.lines} lines ${JSON.stringify(l.levels)}`));
  lines.push(row('settled after', `${settleSec.toFixed(1)} s${settleOk ? '' : ' (did not settle)'}`));
  if (finalMetrics) {
    lines.push(row('gateway faults by API (metrics)', JSON.stringify(Object.fromEntries(Object.entries(apiFaults).filter(([, v]) => Object.keys(v).length)))));
    lines.push(row('transport errors by code (metrics)', JSON.stringify(transportErrors)));
    lines.push(row('good API during the soak (metrics)', JSON.stringify(goodDelta)));
  }
  for (const n of notes) lines.push(`  note: ${n}`);
  for (const r of reasons) lines.push(`  FAIL: ${r}`);
  log(lines.join('\n'));

  const dir = path.join(PROJECT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `soak-${stamp}.json`);
  fs.writeFileSync(file, JSON.stringify({
    at: new Date().toISOString(), pass, reasons, notes,
    config: { minutes: MINUTES, threads: THREADS, connections: CONNECTIONS, failShare: FAIL_SHARE, slowClients: SLOW_CLIENTS, loadShare: LOAD_SHARE, socketTimeoutMs: SOCKET_TIMEOUT_MS, slowBackendMs: SLOW_BACKEND_MS, rssSlackBytes: RSS_SLACK_BYTES, fdSlack: FD_SLACK, settleMs: SETTLE_MS, slowClientOptions: slowOptions },
    maximum: max, baseline, good, failing: fstats, slowClients: ss, peak, rssSlopeMiBPerMin, settled, settleSec, gatewayExit,
    metrics: finalMetrics ? { faultsByApi: apiFaults, statusesByApi: apiStatuses, transportErrors, goodApiDuringSoak: goodDelta } : null,
    gatewayLogs: logSummary, samples,
  }, null, 2));
  log(`\nresults: ${path.relative(PROJECT, file)}`);
  if (sluice && !gatewayExit) await stopTracked(sluice.proc);
  return pass ? 0 : 1;
}

main().then((code) => { cleanupAll(); process.exit(code); }, (err: Error) => {
  process.stderr.write(`soak failed to run: ${err.stack ?? err.message}\n`);
  cleanupAll();
  process.exit(1);
});
