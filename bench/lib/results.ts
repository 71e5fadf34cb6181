import type { LoadResult } from './load.js';
import type { CpuPerCall } from './proc-cpu.js';
import type { ProxyId } from '../peers/peer.js';

/** The scenarios of `npm run bench`, in the order the tables show them. */
export const SCENARIOS = {
  'get': 'GET small, pass-through',
  'get-secured': 'GET small, secured: JWT RS256 + rate limit per client',
  'get-bytes': 'GET small, pass-through with the secured call\'s bytes (its token in, its rate-limit fields out)',
  'get-jwt': 'GET small, JWT + subscription (no throttling policy)',
  'get-mediated': 'GET small, a small in-sequence',
  'post-10k': 'POST 10 KB, pass-through',
  'upload-1m': 'POST 1 MiB, pass-through',
  'download-1m': 'GET 1 MiB, pass-through',
  'https-echo': 'HTTPS POST 1 KiB echo, JWT (the reference scenario), each round opening its 100 TLS connections in the time measured (wrk)',
  'https-echo-warm': 'HTTPS POST 1 KiB echo, JWT, measured after a warm-up on the same connections, as the reference run is (h2load)',
} as const;
export type ScenarioId = keyof typeof SCENARIOS;
export const SCENARIO_IDS = Object.keys(SCENARIOS) as ScenarioId[];

export interface Measurement {
  readonly scenario: ScenarioId;
  readonly proxy: ProxyId;
  readonly threads: number;
  readonly connections: number;
  readonly result: LoadResult;
  /** CPU of the proxy's own processes per call; for `direct`, the backend's. */
  readonly cpu: CpuPerCall | null;
  /** Sluice only: peak RSS of the gateway process during the load, MiB. */
  readonly peakRssMiB?: number;
  /**
   * The requests/s of each round of the load, in the order they ran; the measurement itself is the round
   * with the median (bench/run.ts). Absent in results from before rounds (2026-11-28).
   */
  readonly rounds?: readonly number[];
}

/** One round of a load: what wrk saw, the proxy's CPU per call, the gateway's peak RSS. */
export type Round = Omit<Measurement, 'rounds'>;

/**
 * A load's figure from its rounds: the round with the median requests/s (the lower middle one of an even
 * count), with every round's requests/s in the order they ran, and the highest peak RSS any round saw.
 */
export function medianRound(rounds: readonly Round[]): Measurement {
  if (rounds.length === 0) throw new Error('a load without rounds has no figure');
  const byRate = [...rounds].sort((a, b) => a.result.requestsPerSec - b.result.requestsPerSec);
  const mid = byRate[(byRate.length - 1) >> 1]!;
  const peaks = rounds.flatMap((r) => (r.peakRssMiB === undefined ? [] : [r.peakRssMiB]));
  return { ...mid, ...(peaks.length ? { peakRssMiB: Math.max(...peaks) } : {}), rounds: rounds.map((r) => r.result.requestsPerSec) };
}

/**
 * Sluice's pass-through and secured loads measured back to back, pair after pair, after the plan's rounds
 * (bench/run.ts): requests/s of each side, pair by pair. The secured target is a ratio of two Sluice loads
 * that differ by 5-10%, where the machine's drift between two loads a minute apart is as large; a pair's
 * two loads are seconds apart, and the order alternates, so a drift that runs one way through the pairs
 * weighs on both sides alike.
 */
export interface SecuredPairs {
  readonly threads: number;
  readonly connections: number;
  /** Requests/s of each pair's pass-through load, in the order the pairs ran. */
  readonly pass: readonly number[];
  /** Requests/s of each pair's secured load, in the same order. */
  readonly secured: readonly number[];
}

/**
 * Sluice's load and nginx's measured back to back, pair after pair, after the plan's rounds (bench/run.ts),
 * for the targets that set Sluice beside nginx on a load both serve: POST 10 KB at each thread count, and
 * the pass-through GET at 2 io threads against 2 workers. In the rounds the two loads ran up to a minute
 * apart, and a round of either moved by up to 30% with the host (stop 45: Sluice's POST rounds 18 276-24 966).
 */
export interface NginxPairs {
  readonly scenario: 'post-10k' | 'get';
  readonly threads: number;
  readonly connections: number;
  /** Requests/s of each pair's Sluice load, in the order the pairs ran. */
  readonly sluice: readonly number[];
  /** Requests/s of each pair's nginx load, in the same order. */
  readonly nginx: readonly number[];
}

/** Each pair's secured over pass-through, in the order the pairs ran. */
export function pairRatios(p: SecuredPairs): number[] {
  return p.pass.map((rps, i) => p.secured[i]! / rps);
}

/** Each pair's Sluice over nginx, in the order the pairs ran. */
export function nginxPairRatios(p: NginxPairs): number[] {
  return p.nginx.map((rps, i) => p.sluice[i]! / rps);
}

/** The median of numbers (the mean of the middle two of an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** What `npm run bench` writes to bench/results/*.json, and what the docs page is generated from. */
export interface BenchResults {
  readonly version: 2;
  readonly at: string;
  /** The command as it was run, knobs included. */
  readonly command: string;
  readonly quick: boolean;
  /** Rounds per load (absent before rounds: 1). */
  readonly rounds?: number;
  /** Seconds of each measured round. */
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly threads: readonly number[];
  readonly connections: readonly number[];
  /** The connections of every scenario but the pass-through GET's sweep (100 unless asked otherwise). */
  readonly refConnections: number;
  readonly accessLog: boolean;
  readonly machine: Readonly<Record<string, string>>;
  readonly measurements: readonly Measurement[];
  /** Sluice's back-to-back pass-through and secured pairs, per thread count (absent before 2026-11-29, or with BENCH_PAIRS=0). */
  readonly securedPairs?: readonly SecuredPairs[];
  /** Sluice's and nginx's back-to-back pairs, per target and thread count (absent before stop 46, or with BENCH_PAIRS=0). */
  readonly nginxPairs?: readonly NginxPairs[];
}

/**
 * The measurement of a scenario for a proxy and thread count. The pass-through GET runs at several
 * connection counts: without `connections`, the run's reference count. Every other scenario runs at one
 * count of its own (the 1 MiB ones at fewer), which is the one found.
 */
export function findMeasurement(r: BenchResults, scenario: ScenarioId, proxy: ProxyId, threads: number, connections?: number): Measurement | undefined {
  const c = connections ?? (scenario === 'get' ? r.refConnections : undefined);
  return r.measurements.find((m) => m.scenario === scenario && m.proxy === proxy && m.threads === threads && (c === undefined || m.connections === c));
}

/** Whether every call of the load was answered 2xx/3xx without a socket error: a ratio of a load that was not is no figure. */
export function clean(m: Measurement): boolean {
  return m.result.errors === 0 && m.result.non2xx === 0 && m.result.requests > 0;
}

export function cpuTotal(m: Measurement): number | null {
  return m.cpu ? m.cpu.userUs + m.cpu.kernelUs : null;
}
