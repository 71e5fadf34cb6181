import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadOptions, LoadResult } from './load.js';
import { runProgram } from './tools.js';

/**
 * One h2load run (nghttp2's load generator, C++, HTTP/1.1 with `--h1`) that splits its time into a warm-up
 * part and a measured part on the same connections, as the reference system's published runs do (WSO2 runs
 * each scenario for a fixed time, then "splits the test results into warmup and measurement parts and uses
 * the measurement part": apim.docs.wso2.com, Performance and Capacity Planning). wrk cannot: each wrk run
 * opens its connections inside the time it measures, and on HTTPS their handshakes weigh on the calls of
 * the connections already open.
 *
 * The figures come from h2load's per-request log (`--log-file`), which holds the measured part only: one
 * line per call, its start in µs since the epoch, its status, its µs to the end of the response.
 */
export interface H2loadOptions extends LoadOptions {
  /** Seconds of load on the same connections before the `durationSec` measured (h2load's --warm-up-time). */
  readonly warmupSec: number;
  /** Called once, when the warm-up ends and the measured part begins (by the clock, from h2load's start). */
  readonly onMeasured?: () => void;
}

/** h2load takes whole seconds, one at least: the figures and the warm-up's end are reckoned in the same ones. */
const wholeSeconds = (s: number): number => Math.max(1, Math.round(s));

/** The counts of h2load's `requests:` and `status codes:` lines. */
export interface H2loadSummary {
  readonly done: number;
  readonly errored: number;
  readonly timeout: number;
  /** Answers with status 400 or more (4xx and 5xx), as wrk's `errors.status` counts them. */
  readonly non2xx: number;
}

/** The summary lines of h2load's report; fails when they are missing (h2load changed, or did not run). */
export function parseH2loadSummary(stdout: string): H2loadSummary {
  const req = /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout$/m.exec(stdout);
  const status = /^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx$/m.exec(stdout);
  if (!req || !status) throw new Error(`h2load printed no summary: ${stdout.slice(-600)}`);
  return { done: Number(req[3]), errored: Number(req[6]), timeout: Number(req[7]), non2xx: Number(status[3]) + Number(status[4]) };
}

/** Latencies of a per-request log: the nearest-rank percentiles in milliseconds, and the call count. */
export function latencyOfLog(log: string): { calls: number; latencyMs: LoadResult['latencyMs'] } {
  const lines = log.split('\n').filter((l) => l !== '');
  const us = new Float64Array(lines.length);
  for (const [i, line] of lines.entries()) {
    const cols = line.split('\t');
    const v = Number(cols[2]);
    if (cols.length < 3 || !Number.isFinite(v) || v < 0) throw new Error(`h2load's log: not a request line: ${JSON.stringify(line.slice(0, 200))}`);
    us[i] = v;
  }
  us.sort();
  const n = us.length;
  const at = (q: number): number => (n === 0 ? 0 : us[Math.max(0, Math.ceil((q / 100) * n) - 1)]! / 1000);
  return { calls: n, latencyMs: { p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: n === 0 ? 0 : us[n - 1]! / 1000 } };
}

/** h2load's arguments for a run; header names and values go as they are, so a line break in one is refused. */
export function h2loadArgs(o: H2loadOptions, files: { log: string; body?: string }): string[] {
  const args = ['--h1', '-t1', `-c${o.connections}`, `-D${wholeSeconds(o.durationSec)}`, `--warm-up-time=${wholeSeconds(o.warmupSec)}`, `--log-file=${files.log}`];
  if ((o.method ?? 'GET') === 'POST') {
    if (!files.body) throw new Error('a POST load needs a body');
    args.push('-d', files.body);
  } else if (files.body) {
    throw new Error('h2load sends a body as a POST only');
  }
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (/[\r\n\0]/.test(k + v)) throw new Error(`header ${JSON.stringify(k)}: a line break or NUL cannot go to h2load`);
    args.push('-H', `${k}: ${v}`);
  }
  args.push(o.url);
  return args;
}

/** Runs h2load once and returns what its measured part saw; fails when h2load fails or completes no call. */
export async function runH2load(o: H2loadOptions): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-h2load-'));
  const timers: NodeJS.Timeout[] = [];
  try {
    const log = path.join(dir, 'requests.log');
    let body: string | undefined;
    if (o.body) { body = path.join(dir, 'body'); fs.writeFileSync(body, o.body); }
    const args = h2loadArgs(o, { log, ...(body ? { body } : {}) });
    const run = runProgram('h2load', args);
    if (o.sample) timers.push(setInterval(o.sample, 250));
    if (o.onMeasured) timers.push(setTimeout(o.onMeasured, wholeSeconds(o.warmupSec) * 1000));
    const { code, stdout, stderr } = await run;
    if (code !== 0) throw new Error(`h2load ${args.join(' ')} exited ${code}: ${(stderr || stdout).slice(-600)}`);
    const s = parseH2loadSummary(stdout);
    if (s.done === 0) throw new Error(`h2load completed no call against ${o.url} (could it connect?): ${(stderr + stdout).slice(-600)}`);
    const { latencyMs } = latencyOfLog(fs.readFileSync(log, 'utf8'));
    const seconds = wholeSeconds(o.durationSec);
    const bytes = /^traffic: .*?\((\d+)\) total/m.exec(stdout);
    return {
      requestsPerSec: s.done / seconds,
      requests: s.done,
      errors: s.errored + s.timeout,
      non2xx: s.non2xx,
      throughputMiBps: bytes ? Number(bytes[1]) / seconds / 1024 / 1024 : 0,
      latencyMs,
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
