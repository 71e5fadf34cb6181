import type { ProxyId } from '../peers/peer.js';
import { clean, findMeasurement, median, nginxPairRatios, pairRatios, type BenchResults, type Measurement, type NginxPairs, type ScenarioId, type SecuredPairs } from './results.js';

/** The reference system's published HTTPS figures (WSO2 API-M 4.x performance run 496): TPS and p99. */
export const REFERENCE_HTTPS = { tps: 3800, p99Ms: 76, aimRatio: 5, aimP99Ms: 10 } as const;

export type Verdict = 'met' | 'not met' | 'n/a';

export interface TargetLine {
  /** The target as issue 20 states it. */
  readonly target: string;
  readonly threads: number;
  /** The measured ratio (or the TPS ratio to the reference), null when a side was not measured or not clean. */
  readonly ratio: number | null;
  readonly min: number;
  readonly verdict: Verdict;
  /** What the ratio was made of, or why there is none. */
  readonly detail: string;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').replace(/,/g, ' ');

/** What makes a load not clean, said in a target line. */
const faults = (m: Measurement): string => `${m.result.errors} errors and ${m.result.non2xx} non-2xx answers`;

/** The range of a load's rounds, when it had several: ` (rounds 61 000-64 000)`. */
function spread(m: Measurement): string {
  const r = m.rounds;
  if (r === undefined || r.length < 2) return '';
  return ` (rounds ${fmt(Math.min(...r))}-${fmt(Math.max(...r))})`;
}

/** Sluice's `a` over a peer's `b`, both same-run requests/s; n/a when either is missing or saw errors. */
function ratioLine(target: string, threads: number, min: number, a: Measurement | undefined, b: Measurement | undefined, what: [string, string]): TargetLine {
  if (!a || !b) return { target, threads, min, ratio: null, verdict: 'n/a', detail: `not measured (${!a ? what[0] : what[1]})` };
  for (const [m, name] of [[a, what[0]], [b, what[1]]] as const) {
    if (!clean(m)) return { target, threads, min, ratio: null, verdict: 'n/a', detail: `${name} had ${faults(m)}` };
  }
  const ratio = a.result.requestsPerSec / b.result.requestsPerSec;
  return { target, threads, min, ratio, verdict: ratio >= min ? 'met' : 'not met', detail: `${what[0]} ${fmt(a.result.requestsPerSec)}${spread(a)} / ${what[1]} ${fmt(b.result.requestsPerSec)}${spread(b)} requests/s` };
}

/** Issue 20's targets, one line per target and thread count, from one run's measurements. */
export function evaluateTargets(r: BenchResults): TargetLine[] {
  const lines: TargetLine[] = [];
  const m = (scenario: ScenarioId, proxy: ProxyId, threads: number, c?: number): Measurement | undefined => findMeasurement(r, scenario, proxy, threads, c);
  const log = r.accessLog ? 'access log on' : 'access log OFF';
  for (const t of r.threads) {
    lines.push(ratioLine(`pass-through ≥ 0.9x the floor (${log})`, t, 0.9, m('get', 'sluice', t), m('get', 'floor', t), ['Sluice', 'floor']));
    lines.push(securedLine(t, m('get-secured', 'sluice', t), m('get', 'sluice', t), m('get-bytes', 'sluice', t), r.securedPairs?.find((p) => p.threads === t)));
    lines.push(ratioLine('secured ≥ 1.5x HAProxy secured (goal 2x)', t, 1.5, m('get-secured', 'sluice', t), m('get-secured', 'haproxy', t), ['Sluice', 'HAProxy']));
    lines.push(ratioLine('secured ≥ 3x the fastify stack secured', t, 3, m('get-secured', 'sluice', t), m('get-secured', 'fastify', t), ['Sluice', 'fastify']));
    const nginxPairs = (scenario: NginxPairs['scenario']): number[] | undefined => {
      const p = r.nginxPairs?.find((x) => x.scenario === scenario && x.threads === t && (scenario !== 'get' || x.connections === 100));
      return p && nginxPairRatios(p);
    };
    lines.push(byPairs(ratioLine('POST 10 KB ≥ 0.85x nginx', t, 0.85, m('post-10k', 'sluice', t), m('post-10k', 'nginx', t), ['Sluice', 'nginx']), nginxPairs('post-10k')));
    lines.push(ratioLine('1 MiB up ≥ 0.95x nginx', t, 0.95, m('upload-1m', 'sluice', t), m('upload-1m', 'nginx', t), ['Sluice', 'nginx']));
    lines.push(ratioLine('1 MiB down ≥ 0.95x nginx', t, 0.95, m('download-1m', 'sluice', t), m('download-1m', 'nginx', t), ['Sluice', 'nginx']));
    if (t === 2) lines.push(byPairs(ratioLine('2 io threads ≥ 1.0x nginx with 2 workers, 100 connections', 2, 1.0, m('get', 'sluice', 2, 100), m('get', 'nginx', 2, 100), ['Sluice', 'nginx']), nginxPairs('get')));
    lines.push(httpsLine(t, m('https-echo-warm', 'sluice', t), m('https-echo', 'sluice', t)));
  }
  return lines;
}

/**
 * A target decided by back-to-back pairs (results.ts SecuredPairs, NginxPairs): the median of the pairs'
 * own ratios, each pair's two loads seconds apart where the rounds' medians are of loads a minute apart.
 * The rounds' ratio is still said beside it. Without pairs (older results, BENCH_PAIRS=0, none measured)
 * the rounds decide.
 */
function byPairs(l: TargetLine, ratios: readonly number[] | undefined): TargetLine {
  if (ratios === undefined || ratios.length === 0) return l;
  const ratio = median(ratios);
  const rounds = l.ratio === null ? l.detail : `${l.detail} = ${l.ratio.toFixed(2)}x`;
  return {
    ...l, ratio, verdict: ratio >= l.min ? 'met' : 'not met',
    detail: `median of ${ratios.length} back-to-back pairs ${ratio.toFixed(3)} (pairs ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); the rounds: ${rounds}`,
  };
}

/**
 * Secured over pass-through, and (with the `get-bytes` load) what that ratio is made of: a secured call
 * carries more bytes than a pass-through one (its token in, its rate-limit fields out), which cost the
 * client, the kernel and the gateway's reads and writes whatever the gateway does with them; the pass-through
 * load with those bytes over the plain one is their share, and secured over it the share of Sluice's
 * security work (authentication, subscription, throttling).
 *
 * With back-to-back pairs (results.ts SecuredPairs), the verdict is theirs (byPairs).
 */
function securedLine(threads: number, secured: Measurement | undefined, pass: Measurement | undefined, bytes: Measurement | undefined, pairs?: SecuredPairs): TargetLine {
  const l = byPairs(ratioLine('secured ≥ 0.95x Sluice pass-through', threads, 0.95, secured, pass, ['secured', 'pass-through']), pairs && pairRatios(pairs));
  if (l.ratio === null || pass === undefined || secured === undefined || bytes === undefined || !clean(bytes) || !clean(pass) || !clean(secured)) return l;
  const withBytes = bytes.result.requestsPerSec;
  const bytesShare = withBytes / pass.result.requestsPerSec;
  const workShare = secured.result.requestsPerSec / withBytes;
  return { ...l, detail: `${l.detail}; of it the call's bytes ${bytesShare.toFixed(2)}x (pass-through with them ${fmt(withBytes)}${spread(bytes)}) and the security work ${workShare.toFixed(2)}x` };
}

/**
 * The reference scenario against the reference's published figures. The verdict is the warm load's: it is
 * measured as the reference's run was, after a warm-up on the connections it measures (lib/h2load.ts). The
 * load whose rounds open their 100 TLS connections in the time measured is said beside it. A run without
 * the warm load (results from before 2026-11-29's stop 45) is judged on the other.
 */
function httpsLine(threads: number, warm: Measurement | undefined, cold: Measurement | undefined): TargetLine {
  const ref = REFERENCE_HTTPS;
  const target = `HTTPS JWT POST 1 KiB echo ≥ ${ref.aimRatio}x the reference's ${fmt(ref.tps)} TPS with p99 ≤ ${ref.aimP99Ms} ms`;
  const base = { target, threads, min: ref.aimRatio };
  const s = warm ?? cold;
  if (!s) return { ...base, ratio: null, verdict: 'n/a', detail: 'not measured' };
  if (!clean(s)) return { ...base, ratio: null, verdict: 'n/a', detail: faults(s) };
  const ratio = s.result.requestsPerSec / ref.tps;
  const p99 = s.result.latencyMs.p99;
  const figures = (m: Measurement): string => `${fmt(m.result.requestsPerSec)} TPS, p99 ${m.result.latencyMs.p99.toFixed(1)} ms`;
  const beside = warm && cold ? `; with each round's 100 TLS handshakes in the time measured (wrk): ${clean(cold) ? figures(cold) : faults(cold)}` : '';
  return {
    ...base, ratio, verdict: ratio >= ref.aimRatio && p99 <= ref.aimP99Ms ? 'met' : 'not met',
    detail: `${warm ? 'after a warm-up on the same connections (h2load): ' : ''}${figures(s)}, against ${fmt(ref.tps)} TPS, p99 ${ref.p99Ms} ms (WSO2 API-M 4.x run 496, 2 vCPU c5.large, measured after its warm-up, load from another machine; here the load generator shares the 2 cores)${beside}`,
  };
}
