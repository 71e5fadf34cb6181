import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load.js';
import { runProgram } from './tools.js';

/**
 * One wrk run (wrk 4.1, C, keep-alive, HTTP or HTTPS), driven by a Lua script this module writes: the
 * method, headers and body of the request, and a `done` hook that prints the summary and latency
 * percentiles as one JSON line, so that nothing depends on the layout of wrk's human report.
 *
 * wrk is the load generator of `npm run bench` because autocannon, a Node process, saturates near 55-60k
 * requests/s on this machine and spends more of the two shared cores per call than the proxies it drives.
 */
export interface WrkOptions {
  readonly url: string;
  readonly connections: number;
  /** wrk threads (default 1). */
  readonly threads?: number;
  readonly durationSec: number;
  readonly method?: 'GET' | 'POST';
  readonly body?: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sampled every 250 ms while the load runs (RSS of the gateway, for example). */
  readonly sample?: () => void;
}

/** The marker of the line the script's `done` hook prints. */
const MARK = 'sluice-wrk ';

/** A Lua string literal for any bytes: printable ASCII as is, everything else as a decimal escape. */
export function luaString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b}`;
  }
  return out + '"';
}

/** The Lua script for one run; `bodyFile` holds the request body (read once per wrk thread, at start). */
export function wrkScript(o: { method?: string; headers?: Readonly<Record<string, string>>; bodyFile?: string }): string {
  const lines = ['-- Written by bench/lib/wrk.ts for one run of npm run bench.', `wrk.method = ${luaString(o.method ?? 'GET')}`];
  for (const [k, v] of Object.entries(o.headers ?? {})) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  if (o.bodyFile) lines.push(`do local f = assert(io.open(${luaString(o.bodyFile)}, "rb")); wrk.body = f:read("*a"); f:close() end`);
  // %.0f, not %d: byte counts pass 2^31 in long runs.
  lines.push(`done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('\\n${MARK}{"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"p999":%.0f,"max":%.0f}\\n',
    s.requests, s.duration, s.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end`);
  return lines.join('\n') + '\n';
}

interface WrkReport {
  requests: number; durationUs: number; bytes: number;
  connect: number; read: number; write: number; status: number; timeout: number;
  p50: number; p90: number; p99: number; p999: number; max: number;
}

/**
 * The result of a run from wrk's standard output (the script's JSON line). Latencies come in microseconds.
 * `errors` are socket errors and timeouts; `non2xx` counts answers with status 400 or more (wrk's
 * `errors.status`).
 */
export function parseWrkOutput(stdout: string): LoadResult {
  const line = stdout.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`wrk printed no summary (did it connect?): ${stdout.slice(-600)}`);
  const r = JSON.parse(line.slice(MARK.length)) as WrkReport;
  const seconds = r.durationUs / 1e6;
  if (!(seconds > 0)) throw new Error(`wrk ran for no time: ${line}`);
  const ms = (us: number): number => us / 1000;
  return {
    requestsPerSec: r.requests / seconds,
    requests: r.requests,
    errors: r.connect + r.read + r.write + r.timeout,
    non2xx: r.status,
    throughputMiBps: r.bytes / seconds / 1024 / 1024,
    latencyMs: { p50: ms(r.p50), p90: ms(r.p90), p99: ms(r.p99), p999: ms(r.p999), max: ms(r.max) },
  };
}

/** Runs wrk once and returns what it measured; fails when wrk fails or prints no summary. */
export async function runWrk(o: WrkOptions): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-wrk-'));
  try {
    let bodyFile: string | undefined;
    if (o.body) { bodyFile = path.join(dir, 'body'); fs.writeFileSync(bodyFile, o.body); }
    const script = path.join(dir, 'run.lua');
    fs.writeFileSync(script, wrkScript({ ...(o.method ? { method: o.method } : {}), ...(o.headers ? { headers: o.headers } : {}), ...(bodyFile ? { bodyFile } : {}) }));
    const threads = Math.min(o.threads ?? 1, o.connections);
    // A 30 s timeout, as the latencies at 1000 connections on two loaded cores can pass wrk's default 2 s.
    const args = [`-t${threads}`, `-c${o.connections}`, `-d${Math.max(1, Math.round(o.durationSec))}s`, '--timeout', '30s', '-s', script, o.url];
    const timer = o.sample ? setInterval(o.sample, 250) : null;
    try {
      const { code, stdout, stderr } = await runProgram('wrk', args);
      if (code !== 0) throw new Error(`wrk ${args.join(' ')} exited ${code}: ${(stderr || stdout).slice(-600)}`);
      return parseWrkOutput(stdout);
    } finally {
      if (timer) clearInterval(timer);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
