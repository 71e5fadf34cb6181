import path from 'node:path';
import { benchApiToml, cleanupAll, rssOf, startNginxBackend, startSluice, stopTracked, type SluiceHandle } from './lib/products.js';
import { CpuMeter } from './lib/proc-cpu.js';
import { runWrk } from './lib/wrk.js';

/**
 * `node dist/bench/ab.js ROOT_A ROOT_B [...]`: a same-run A/B of checkouts of Sluice (each built with
 * `npm run build`), for a change too small to see across two bench runs on this shared machine. Every
 * checkout runs at once from its own CLI and default home, one io thread, in front of the same nginx
 * backend; the rounds alternate between them (A, B, A, B...), so a drift of the machine's speed reaches all
 * alike. Each round reports requests/s and the CPU µs per call of the gateway's process from /proc; the
 * summary gives the medians and each checkout's ratio to the first.
 *
 *   AB_ROUNDS       rounds per checkout (default 8)
 *   AB_SECONDS      seconds per round (default 5; 2 s of warm-up load come first)
 *   AB_CONNECTIONS  wrk connections (default 50)
 *   AB_ACCESS_LOG   "off" turns the access log off (default on, as Sluice ships)
 */
const ROUNDS = Number(process.env['AB_ROUNDS'] ?? 8);
const SECONDS = Number(process.env['AB_SECONDS'] ?? 5);
const CONNECTIONS = Number(process.env['AB_CONNECTIONS'] ?? 50);
const ACCESS_LOG = process.env['AB_ACCESS_LOG'] !== 'off';
const roots = process.argv.slice(2).map((r) => path.resolve(r));
if (roots.length < 2) {
  console.error('usage: node dist/bench/ab.js ROOT_A ROOT_B [ROOT...]  (built checkouts of Sluice)');
  process.exit(2);
}

const BACKEND_PORT = 18990;
const median = (xs: readonly number[]): number => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };

interface Side { readonly root: string; readonly gw: SluiceHandle; readonly url: string; readonly rps: number[]; readonly cpu: number[] }

const backend = await startNginxBackend(BACKEND_PORT);
const sides: Side[] = [];
try {
  for (const [i, root] of roots.entries()) {
    const gw = await startSluice({
      root, offset: 600 + i * 10, ioThreads: 1,
      files: { 'repository/deployment/server/apis/ab-open.toml': benchApiToml({ name: 'AbOpen', context: '/open', backend: `http://127.0.0.1:${BACKEND_PORT}`, auth: 'None' }) },
      conf: { http_access_log: { enabled: ACCESS_LOG } },
    });
    sides.push({ root, gw, url: `http://127.0.0.1:${gw.http}/open/1.0.0/x`, rps: [], cpu: [] });
  }
  for (const s of sides) await runWrk({ url: s.url, connections: CONNECTIONS, durationSec: 3 });
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which checkout goes first, so that neither always follows the other's load.
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) {
      await runWrk({ url: s.url, connections: CONNECTIONS, durationSec: 2 });
      const meter = new CpuMeter([s.gw.proc.pid!]);
      meter.start();
      const res = await runWrk({ url: s.url, connections: CONNECTIONS, durationSec: SECONDS });
      const cpu = meter.stop(res.requests);
      if (res.errors > 0 || res.non2xx > 0) throw new Error(`${s.root}: ${res.errors} socket errors, ${res.non2xx} non-2xx answers`);
      s.rps.push(res.requestsPerSec);
      s.cpu.push(cpu ? cpu.userUs + cpu.kernelUs : NaN);
      console.log(`round ${r + 1} ${s.root}: ${res.requestsPerSec.toFixed(0)} requests/s, ${s.cpu.at(-1)!.toFixed(1)} µs CPU per call, RSS ${(rssOf(s.gw.proc.pid!) / 1048576).toFixed(0)} MiB`);
    }
  }
  const base = sides[0]!;
  console.log(`\n${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, 1 io thread, access log ${ACCESS_LOG ? 'on' : 'off'}: medians`);
  for (const s of sides) {
    console.log(`${s.root}: ${median(s.rps).toFixed(0)} requests/s (${(median(s.rps) / median(base.rps)).toFixed(3)}x), ${median(s.cpu).toFixed(2)} µs CPU per call (${(median(s.cpu) / median(base.cpu)).toFixed(3)}x)`);
  }
} finally {
  for (const s of sides) await stopTracked(s.gw.proc);
  await stopTracked(backend);
  cleanupAll();
}
