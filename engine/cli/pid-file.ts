import fs from 'node:fs';
import path from 'node:path';

/**
 * The pid file of a home (`<home>/repository/sluice.pid`): one decimal process id and a newline, the form
 * systemd's PIDFile= and `kill $(cat ...)` expect. `sluice start` writes it, `sluice stop` and `sluice reload`
 * read it. A pid file whose process is gone (a crash, kill -9) is stale: it is replaced or removed.
 */

export type PidFileState =
  | { readonly state: 'running'; readonly pid: number }
  | { readonly state: 'absent' }
  /** The file names a process that no longer runs, or one that is not Sluice (the pid was reused). */
  | { readonly state: 'stale'; readonly pid: number | null; readonly why: string };

/**
 * Whether `pid` is a live process; on Linux also whether it is a Sluice: its command line runs a program named
 * sluice or sluice.js (node bin/sluice.js, node_modules/.bin/sluice) with the start command.
 */
function isSluiceProcess(pid: number): { alive: boolean; why?: string } {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else; that is not a Sluice we started with this home.
    return { alive: false, why: (err as NodeJS.ErrnoException).code === 'EPERM' ? `process ${pid} belongs to another user` : `process ${pid} is not running` };
  }
  let cmdline: string;
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return { alive: true }; // no /proc: trust the file
  }
  const args = cmdline.split('\0');
  const sluice = args.some((a) => /(^|\/)sluice(\.js)?$/.test(a)) && args.includes('start');
  return sluice ? { alive: true } : { alive: false, why: `process ${pid} is not Sluice (the pid was reused)` };
}

export function readPidFile(file: string): PidFileState {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    throw err;
  }
  const m = /^\s*(\d{1,10})\s*$/.exec(text);
  if (!m) return { state: 'stale', pid: null, why: `${file} does not hold a process id` };
  const pid = Number(m[1]);
  if (pid <= 1) return { state: 'stale', pid, why: `${file} holds an impossible process id ${pid}` };
  const p = isSluiceProcess(pid);
  return p.alive ? { state: 'running', pid } : { state: 'stale', pid, why: p.why! };
}

/**
 * Claims the home for this process: refuses when another live Sluice holds the pid file, replaces a stale
 * one. Returns a function that removes the file (only while it still names this process).
 */
export function claimPidFile(file: string, pid = process.pid): { release: () => void; replacedStale: string | null } {
  const now = readPidFile(file);
  if (now.state === 'running' && now.pid !== pid) {
    throw new Error(`another Sluice (pid ${now.pid}) runs with this home (${file}); stop it first with sluice stop`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written beside and renamed: a reader never sees a half-written number.
  const tmp = `${file}.${pid}.tmp`;
  fs.writeFileSync(tmp, `${pid}\n`, { mode: 0o644 });
  fs.renameSync(tmp, file);
  const release = (): void => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(pid)) fs.rmSync(file, { force: true });
    } catch { /* already gone */ }
  };
  return { release, replacedStale: now.state === 'stale' ? now.why : null };
}
