import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/** Whether something accepts TCP connections on a local port (the soak refuses to start over another run). */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); r(true); });
    s.once('error', () => { s.destroy(); r(false); });
  });
}

/** Established TCP connections to a local port, from `ss` (a fallback when /metrics is off). */
export function establishedTo(port: number): number | null {
  try {
    const out = execFileSync('ss', ['-Htn', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' });
    return out.split('\n').filter((l) => l.trim() !== '').length;
  } catch { return null; }
}

export interface LogSummary { file: string; lines: number; levels: Record<string, number>; errors: string[]; tail: string[] }

/** A gateway home's logs, summarised for the report (the home is deleted at exit): lines per level, error lines. */
export function summariseLogs(home: string): LogSummary[] {
  const out: LogSummary[] = [];
  const files = [path.join(home, 'stdout.log')];
  const logs = path.join(home, 'repository/logs');
  if (fs.existsSync(logs)) for (const f of fs.readdirSync(logs)) files.push(path.join(logs, f));
  for (const f of files) {
    try {
      const st = fs.statSync(f);
      if (!st.isFile() || st.size > 512 * 1024 * 1024) continue;
      const lines = fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() !== '');
      const levels: Record<string, number> = {};
      const errors: string[] = [];
      for (const l of lines) {
        const lv = /^\S+\s+(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\b/.exec(l)?.[1] ?? 'other';
        levels[lv] = (levels[lv] ?? 0) + 1;
        if ((lv === 'ERROR' || lv === 'FATAL' || lv === 'other') && errors.length < 20) errors.push(l.slice(0, 400));
      }
      out.push({ file: path.relative(home, f), lines: lines.length, levels, errors, tail: lines.slice(-5).map((l) => l.slice(0, 400)) });
    } catch { /* unreadable */ }
  }
  return out;
}
