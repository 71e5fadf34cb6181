import { PROXIES, type ProxyId } from '../peers/peer.js';
import { SCENARIOS, SCENARIO_IDS, clean, type BenchResults, type Measurement } from './results.js';
import { evaluateTargets, type TargetLine } from './targets.js';

/**
 * The tables of one run as Markdown: printed at the end of `npm run bench` and written into
 * docs/performance.md by `npm run bench:docs`, so that the page shows exactly what the run printed.
 */

const NAMES: Record<ProxyId, string> = { direct: 'direct', nginx: 'nginx', haproxy: 'HAProxy', fastify: 'fastify', floor: 'floor', sluice: 'Sluice' };
const RATIO_TO: readonly ProxyId[] = ['nginx', 'haproxy', 'fastify', 'floor'];

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US').replace(/,/g, ' ');
const fmtMs = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const fmtUs = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

/** A warning mark for a load that saw errors or non-2xx answers: its figures are not comparable. */
function flag(m: Measurement): string {
  return clean(m) ? '' : ` ⚠ ${m.result.errors} errors, ${m.result.non2xx} non-2xx`;
}

interface Row { readonly scenario: keyof typeof SCENARIOS; readonly threads: number; readonly connections: number; readonly cells: Partial<Record<ProxyId, Measurement>> }

/** Rows in the tables' order: threads, then scenario, then connections. */
export function rows(r: BenchResults): Row[] {
  const out: Row[] = [];
  for (const threads of r.threads) {
    for (const scenario of SCENARIO_IDS) {
      const ms = r.measurements.filter((m) => m.threads === threads && m.scenario === scenario);
      for (const connections of [...new Set(ms.map((m) => m.connections))].sort((a, b) => a - b)) {
        const cells: Partial<Record<ProxyId, Measurement>> = {};
        for (const m of ms) if (m.connections === connections) cells[m.proxy] = m;
        out.push({ scenario, threads, connections, cells });
      }
    }
  }
  return out;
}

function table(head: readonly string[], body: readonly (readonly string[])[]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...body.map((b) => `| ${b.join(' | ')} |`)].join('\n');
}

const rowLabel = (row: Row): string[] => [SCENARIOS[row.scenario], String(row.threads), String(row.connections)];

/** Requests/s and p99 per proxy, and Sluice's ratio to each peer in the same row. */
export function throughputTable(r: BenchResults): string {
  const head = ['scenario', 'threads', 'conns', ...PROXIES.map((p) => NAMES[p]), ...RATIO_TO.map((p) => `Sluice / ${NAMES[p]}`)];
  const body = rows(r).map((row) => {
    const s = row.cells.sluice;
    return [
      ...rowLabel(row),
      ...PROXIES.map((p) => { const m = row.cells[p]; return m ? `${fmtInt(m.result.requestsPerSec)} (${fmtMs(m.result.latencyMs.p99)})${flag(m)}` : ''; }),
      ...RATIO_TO.map((p) => { const m = row.cells[p]; return s && m && m.result.requestsPerSec > 0 ? `${(s.result.requestsPerSec / m.result.requestsPerSec).toFixed(2)}` : ''; }),
    ];
  });
  return table(head, body);
}

/** CPU µs per call of each proxy's own processes: total (user + kernel). */
export function cpuTable(r: BenchResults): string {
  const head = ['scenario', 'threads', 'conns', ...PROXIES.map((p) => NAMES[p])];
  const body = rows(r).map((row) => [
    ...rowLabel(row),
    ...PROXIES.map((p) => { const c = row.cells[p]?.cpu; return c ? `${fmtUs(c.userUs + c.kernelUs)} (${fmtUs(c.userUs)} + ${fmtUs(c.kernelUs)})` : ''; }),
  ]);
  return table(head, body);
}

/**
 * A target's figure, `0.95x`: with as many more digits as it takes for the figure to read on the same side of
 * the threshold as the verdict (0.947 against 0.95 reads 0.947x, never 0.95x and not met).
 */
function ratioText(l: TargetLine): string {
  if (l.ratio === null) return 'n/a';
  const met = l.ratio >= l.min;
  let digits = 2;
  while (digits < 8 && (Number(l.ratio.toFixed(digits)) >= l.min) !== met) digits++;
  return `${l.ratio.toFixed(digits)}x`;
}

export function targetsTable(lines: readonly TargetLine[]): string {
  return table(['target', 'threads', 'measured', 'verdict', 'from'], lines.map((l) => [
    l.target, String(l.threads), ratioText(l), l.verdict === 'met' ? 'met' : l.verdict === 'not met' ? '**not met**' : 'n/a', l.detail,
  ]));
}

/** One line per target for the terminal: `met      secured ≥ 1.5x HAProxy secured (goal 2x), 1 thread: 1.62x`. */
export function targetLines(lines: readonly TargetLine[]): string {
  return lines.map((l) => `${l.verdict.padEnd(8)} ${l.target}, ${l.threads} thread${l.threads === 1 ? '' : 's'}: ${ratioText(l)} (${l.detail})`).join('\n');
}

/** The peak gateway RSS per thread count, from the samples taken during Sluice's loads. */
export function rssLine(r: BenchResults): string {
  return r.threads.map((t) => {
    const peak = Math.max(0, ...r.measurements.filter((m) => m.threads === t && m.peakRssMiB !== undefined).map((m) => m.peakRssMiB!));
    return `${t} io thread${t === 1 ? '' : 's'}: ${peak.toFixed(0)} MiB`;
  }).join(', ');
}

/** The back-to-back pairs, when the run has them. */
function pairsText(r: BenchResults): string {
  const n = Math.max(0, ...(r.securedPairs ?? []).map((p) => p.pass.length), ...(r.nginxPairs ?? []).map((p) => p.sluice.length));
  if (n === 0) return '';
  const sets = [
    ...(r.securedPairs?.length ? ['Sluice\'s pass-through and secured loads'] : []),
    ...(r.nginxPairs?.some((p) => p.scenario === 'post-10k') ? ['Sluice\'s and nginx\'s POST 10 KB'] : []),
    ...(r.nginxPairs?.some((p) => p.scenario === 'get') ? ['Sluice\'s and nginx\'s GET at 2 threads'] : []),
  ];
  return `, then ${n} back-to-back pairs of ${sets.join(', of ')}, the order alternating, whose median ratio is that target's figure`;
}

/** What the run was: the command, when, on what. */
export function runLine(r: BenchResults): string {
  const machine = Object.entries(r.machine).map(([k, v]) => `${k} ${v}`).join('; ');
  return `\`${r.command}\`, ${r.at}${r.quick ? ' (**a smoke run**: short loads on a loaded machine, to check that everything starts, answers and is parsed; not figures)' : ''}. ` +
    `${(r.rounds ?? 1) > 1 ? `${r.rounds} rounds of ${r.durationSec} s per load, each after ${r.warmupSec} s of warm-up, the whole plan once per round; each figure is its load's median round` : `${r.durationSec} s per load after ${r.warmupSec} s of warm-up`}${pairsText(r)}, wrk with 1 thread${r.measurements.some((m) => m.scenario === 'https-echo-warm') ? ' (the warm HTTPS load: h2load with 1 thread, its own warm-up on the connections it measures)' : ''}; Sluice's access log ${r.accessLog ? 'on' : 'off'}. ${machine}.`;
}

/** The whole results section of docs/performance.md, with the charts at `chartDir` (relative to the page). */
export function resultsSection(r: BenchResults, chartDir: string): string {
  const charts = r.threads.flatMap((t) => {
    const th = `${t} thread${t === 1 ? '' : 's'}`;
    return [`![requests/s, ${th}](${chartDir}/bench-rps-t${t}.svg)`, `![CPU µs per call, ${th}](${chartDir}/bench-cpu-t${t}.svg)`];
  });
  return [
    runLine(r), '',
    ...charts.map((c) => `${c}\n`),
    'Requests/s (p99 in ms) and Sluice\'s same-run ratio to each peer; the secured row is each proxy\'s secured frontend (Sluice: JWT + subscription + throttling):', '',
    throughputTable(r), '',
    'CPU µs per call of each proxy\'s own processes, from /proc: total (user + kernel); for direct, the backend\'s:', '',
    cpuTable(r), '',
    `Peak gateway RSS: ${rssLine(r)}.`, '',
    'Issue 20\'s targets, every figure a ratio in this run:', '',
    targetsTable(evaluateTargets(r)),
  ].join('\n');
}
