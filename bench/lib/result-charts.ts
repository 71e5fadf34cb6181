import { PROXIES } from '../peers/peer.js';
import { barChart, type BarGroup } from './chart.js';
import { fmtInt } from './report.js';
import { findMeasurement, type BenchResults, type ScenarioId } from './results.js';

/** The scenarios the charts show (at the run's reference connection count), with their labels there. */
const CHARTED: Partial<Record<ScenarioId, string>> = {
  'get': 'GET small, pass-through',
  'get-secured': 'GET small, secured',
  'post-10k': 'POST 10 KB',
  'upload-1m': 'POST 1 MiB',
  'download-1m': 'GET 1 MiB',
  'https-echo': 'HTTPS POST 1 KiB echo, JWT',
  'https-echo-warm': 'HTTPS echo, after warm-up',
};

export const PROXY_COLORS = [
  { name: 'direct', color: '#9e9e9e' }, { name: 'nginx', color: '#2ca02c' }, { name: 'haproxy', color: '#ff7f0e' },
  { name: 'fastify', color: '#d62728' }, { name: 'floor', color: '#9467bd' }, { name: 'sluice', color: '#1f77b4' },
] as const;

function groups(r: BenchResults, threads: number, bar: (m: NonNullable<ReturnType<typeof findMeasurement>>) => { segments: number[]; text: string } | null): BarGroup[] {
  const out: BarGroup[] = [];
  for (const [scenario, label] of Object.entries(CHARTED) as [ScenarioId, string][]) {
    const bars = PROXIES.flatMap((p) => {
      const m = findMeasurement(r, scenario, p, threads);
      const b = m ? bar(m) : null;
      return b ? [{ series: p, ...b }] : [];
    });
    if (bars.length > 0) out.push({ label, bars });
  }
  return out;
}

/** The charts of one run, by file name: requests/s and CPU µs per call, per thread count. */
export function resultCharts(r: BenchResults): Record<string, string> {
  const files: Record<string, string> = {};
  const when = `${r.at.slice(0, 16).replace('T', ' ')}${r.quick ? ', SMOKE RUN (not figures)' : ''}`;
  for (const t of r.threads) {
    const th = `${t} thread${t === 1 ? '' : 's'}/worker${t === 1 ? '' : 's'}`;
    files[`bench-rps-t${t}.svg`] = barChart({
      title: `Requests/s, ${th}, ${r.refConnections} connections`,
      subtitle: `npm run bench, ${when}; each scenario on its own scale; p99 in brackets`,
      series: PROXY_COLORS,
      groups: groups(r, t, (m) => ({ segments: [m.result.requestsPerSec], text: `${fmtInt(m.result.requestsPerSec)} (${m.result.latencyMs.p99.toFixed(1)} ms)` })),
    });
    files[`bench-cpu-t${t}.svg`] = barChart({
      title: `CPU µs per call of the proxy's own processes, ${th}`,
      subtitle: `npm run bench, ${when}; from /proc; each scenario on its own scale; direct = the backend`,
      series: PROXY_COLORS,
      segmentNames: ['user', 'kernel'],
      groups: groups(r, t, (m) => (m.cpu ? { segments: [m.cpu.userUs, m.cpu.kernelUs], text: `${(m.cpu.userUs + m.cpu.kernelUs).toFixed(1)} µs` } : null)),
    });
  }
  return files;
}
