import path from 'node:path';
import { benchApiToml, cleanupAll, rssOf, startNginxBackend, startSluice, stopTracked } from './lib/products.js';
import { CpuMeter } from './lib/proc-cpu.js';
import { median } from './lib/results.js';
import { runWrk } from './lib/wrk.js';
import { startFloorProxy } from './peers/floor.js';
import { startNginxProxy } from './peers/nginx.js';
import { benchToken, sluiceBenchFiles } from './peers/sluice.js';

/**
 * `node dist/bench/ab.js ROOT_A ROOT_B [...]`: a same-run A/B of checkouts of Sluice (each built with
 * `npm run build`), for a change too small to see across two bench runs on this shared machine. Every
 * checkout runs at once from its own CLI and default home, one io thread, in front of the same nginx
 * backend; the rounds alternate between them (A, B, A, B...), so a drift of the machine's speed reaches all
 * alike. Each round reports requests/s and the CPU µs per call of the gateway's process from /proc; the
 * summary gives the medians (with wrk's p99 latency) and each checkout's ratio to the first, and the same for the better quartile (the
 * 75th percentile of requests/s, the 25th of CPU per call): this host's noise comes in bursts that only ever
 * slow a round down (two identical checkouts measured 0.80x by the median of 8 rounds in one burst), so the
 * better quartile is the steadier figure; a change is real when both agree.
 *
 *   AB_ROUNDS       rounds per checkout (default 8)
 *   AB_SECONDS      seconds per round (default 5; 2 s of warm-up load come first)
 *   AB_CONNECTIONS  wrk connections (default 50)
 *   AB_IO_THREADS   io threads of each checkout (default 1)
 *   AB_ACCESS_LOG   "off" turns the access log off (default on, as Sluice ships)
 *   AB_PATH         the backend path called (default /x, a 24-byte JSON; /1mb, a 1 MiB file)
 *   AB_POST_BYTES   POST a body of this many bytes to /upload instead (the backend reads it whole)
 *   AB_API          "secured": the bench's secured API instead of an open one (bench/peers/sluice.ts: JWT, the
 *                   subscription and three throttling levels), with a token of the bench application
 *
 * A root written `ROOT#nolog` runs that checkout with its access log off, so one checkout can be compared
 * with itself: `node dist/bench/ab.js . .#nolog` is the access log's cost. `floor` and `nginx` stand for the
 * floor of the stack (bench/floor-proxy.ts, this checkout's) and nginx with one worker, as in `npm run bench`:
 * `node dist/bench/ab.js . floor nginx` is the distance to both.
 */
const ROUNDS = Number(process.env['AB_ROUNDS'] ?? 8);
const SECONDS = Number(process.env['AB_SECONDS'] ?? 5);
const CONNECTIONS = Number(process.env['AB_CONNECTIONS'] ?? 50);
const IO_THREADS = Number(process.env['AB_IO_THREADS'] ?? 1);
const ACCESS_LOG = process.env['AB_ACCESS_LOG'] !== 'off';
const POST_BYTES = Number(process.env['AB_POST_BYTES'] ?? 0);
const PATH = POST_BYTES > 0 ? '/upload' : process.env['AB_PATH'] ?? '/x';
const SECURED = process.env['AB_API'] === 'secured';
const LOAD: { readonly method?: 'POST'; readonly body?: Buffer; readonly headers?: Record<string, string> } = POST_BYTES > 0 ? { method: 'POST' as const, body: Buffer.alloc(POST_BYTES, 97), headers: { 'content-type': 'application/octet-stream' } } : {};
const specs = process.argv.slice(2).map((r) => ({ root: path.resolve(r.replace(/#nolog$/, '')), log: ACCESS_LOG && !r.endsWith('#nolog'), name: r }));
if (specs.length < 2) {
  console.error('usage: node dist/bench/ab.js ROOT_A ROOT_B [ROOT...]  (built checkouts of Sluice)');
  process.exit(2);
}

const BACKEND_PORT = 18990;
/** The q-quantile (0..1), by the nearest rank. */
const quantile = (xs: readonly number[], q: number): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))]!; };

/** The request of a side's load: the body's headers (POST) and the token (secured) together. */
const loadOf = (s: Side): typeof LOAD => {
  const headers = { ...LOAD.headers, ...s.headers };
  return { ...LOAD, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
};

interface Side { readonly root: string; readonly pid: number; readonly url: string; readonly headers?: Record<string, string> | undefined; readonly rps: number[]; readonly cpu: number[]; readonly p99: number[]; stop(): Promise<void> }

const backend = await startNginxBackend(BACKEND_PORT);
const sides: Side[] = [];
try {
  for (const [i, spec] of specs.entries()) {
    if (spec.name === 'floor' || spec.name === 'nginx') {
      const port = 18900 + i;
      const peer = spec.name === 'floor' ? await startFloorProxy(port, BACKEND_PORT, 1) : await startNginxProxy(port, BACKEND_PORT, 1);
      sides.push({ root: spec.name, pid: peer.pids[0]!, url: `${peer.passThrough}${PATH}`, rps: [], cpu: [], p99: [], stop: () => peer.stop() });
      continue;
    }
    const backendUrl = `http://127.0.0.1:${BACKEND_PORT}`;
    const gw = await startSluice({
      root: spec.root, offset: 600 + i * 10, ioThreads: IO_THREADS,
      files: SECURED ? sluiceBenchFiles(backendUrl, backendUrl) : { 'repository/deployment/server/apis/ab-open.toml': benchApiToml({ name: 'AbOpen', context: '/open', backend: backendUrl, verbs: ['GET', 'POST'], auth: 'None' }) },
      conf: { http_access_log: { enabled: spec.log } },
    });
    const headers = SECURED ? { authorization: `Bearer ${await benchToken(`https://127.0.0.1:${gw.servletHttps}`)}` } : undefined;
    sides.push({ root: spec.name, pid: gw.proc.pid!, url: `http://127.0.0.1:${gw.http}/${SECURED ? 'throttled' : 'open'}/1.0.0${PATH}`, headers, rps: [], cpu: [], p99: [], stop: () => stopTracked(gw.proc) });
  }
  for (const s of sides) await runWrk({ url: s.url, connections: CONNECTIONS, durationSec: 3, ...loadOf(s) });
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which checkout goes first, so that neither always follows the other's load.
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) {
      await runWrk({ url: s.url, connections: CONNECTIONS, durationSec: 2, ...loadOf(s) });
      const meter = new CpuMeter([s.pid]);
      meter.start();
      const res = await runWrk({ url: s.url, connections: CONNECTIONS, durationSec: SECONDS, ...loadOf(s) });
      const cpu = meter.stop(res.requests);
      if (res.errors > 0 || res.non2xx > 0) throw new Error(`${s.root}: ${res.errors} socket errors, ${res.non2xx} non-2xx answers`);
      s.rps.push(res.requestsPerSec);
      s.cpu.push(cpu ? cpu.userUs + cpu.kernelUs : NaN);
      s.p99.push(res.latencyMs.p99);
      console.log(`round ${r + 1} ${s.root}: ${res.requestsPerSec.toFixed(0)} requests/s, ${s.cpu.at(-1)!.toFixed(1)} µs CPU per call, p99 ${res.latencyMs.p99.toFixed(2)} ms, RSS ${(rssOf(s.pid) / 1048576).toFixed(0)} MiB`);
    }
  }
  const base = sides[0]!;
  console.log(`\n${SECURED ? 'secured ' : ''}${PATH}${POST_BYTES > 0 ? ` POST ${POST_BYTES} bytes` : ''}: ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, ${IO_THREADS} io thread${IO_THREADS === 1 ? "" : "s"}, access log ${ACCESS_LOG ? 'on' : 'off'} (but #nolog): medians`);
  for (const s of sides) {
    console.log(`${s.root}: ${median(s.rps).toFixed(0)} requests/s (${(median(s.rps) / median(base.rps)).toFixed(3)}x), ${median(s.cpu).toFixed(2)} µs CPU per call (${(median(s.cpu) / median(base.cpu)).toFixed(3)}x), p99 ${median(s.p99).toFixed(2)} ms`);
  }
  console.log('better quartile (requests/s q75, CPU q25):');
  for (const s of sides) {
    const rps = quantile(s.rps, 0.75), cpu = quantile(s.cpu, 0.25);
    console.log(`${s.root}: ${rps.toFixed(0)} requests/s (${(rps / quantile(base.rps, 0.75)).toFixed(3)}x), ${cpu.toFixed(2)} µs CPU per call (${(cpu / quantile(base.cpu, 0.25)).toFixed(3)}x)`);
  }
} finally {
  for (const s of sides) await s.stop();
  await stopTracked(backend);
  cleanupAll();
}
