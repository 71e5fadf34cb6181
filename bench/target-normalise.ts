/**
 * The request-target normaliser's cost per call (transport/front-door/request-target.ts), in-process, on one
 * core: a clean target (the fast path: one scan, no allocation), a clean target with dots inside segments
 * (still the fast path), and dirty ones (the general path: decoding, dot-segments, upper-casing).
 *
 *   npm run build && node dist/bench/target-normalise.js
 *
 * Environment: BENCH_CALLS (calls per target per round, 2000000), BENCH_ROUNDS (5; the median round is
 * reported). Prints a table and one JSON line. Not part of `npm run bench` and never run by tests.
 */
import { DEFAULT_TARGET_RULES, normalizePath, type NormalizedTarget } from '../transport/front-door/request-target.js';

const env = (k: string, d: number): number => (process.env[k] !== undefined ? Number(process.env[k]) : d);
const CALLS = env('BENCH_CALLS', 2_000_000);
const ROUNDS = env('BENCH_ROUNDS', 5);

const TARGETS: readonly (readonly [string, string])[] = [
  ['fast: clean', '/pizzashack/v1/menu/items/42'],
  ['fast: dots inside segments', '/pizzashack/1.0.0/menu.json'],
  ['general: unreserved escapes', '/pizzashack/1.0.0/%6Denu/%7Eitems'],
  ['general: dot-segments', '/pizzashack/1.0.0/public/../menu/./items'],
  ['general: UTF-8 escapes, lower case', '/pizzashack/1.0.0/caf%c3%a9/%e2%82%ac'],
  ['general: refused (%2F)', '/pizzashack/1.0.0/a%2Fb'],
];

const out: NormalizedTarget = { refusal: 0, path: '', minDepth: -1, detail: '' };

/** ns per call over `calls` calls; the path lengths are summed so the loop cannot be optimised away. */
function measure(raw: string, calls: number): { ns: number; sink: number } {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    normalizePath(raw, DEFAULT_TARGET_RULES, out);
    sink += out.path.length;
  }
  const t1 = process.hrtime.bigint();
  return { ns: Number(t1 - t0) / calls, sink };
}

const results: { target: string; raw: string; nsPerCall: number }[] = [];
let sink = 0;
for (const [name, raw] of TARGETS) {
  sink += measure(raw, Math.min(CALLS, 200_000)).sink; // warm-up: optimised code before the rounds
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const m = measure(raw, CALLS);
    rounds.push(m.ns);
    sink += m.sink;
  }
  rounds.sort((a, b) => a - b);
  results.push({ target: name, raw, nsPerCall: Number(rounds[Math.floor(rounds.length / 2)]!.toFixed(1)) });
}

for (const r of results) console.log(`${r.target.padEnd(36)} ${String(r.nsPerCall).padStart(8)} ns/call  ${r.raw}`);
console.log(JSON.stringify({ bench: 'target-normalise', node: process.version, calls: CALLS, rounds: ROUNDS, results, sink: sink > 0 }));
