import fs from 'node:fs';
import { HomeLayout } from '../../conf/home.js';
import { loadConfig } from '../../conf/loader.js';
import { ConfigError, formatIssue } from '../../conf/errors.js';
import { readPidFile } from './pid-file.js';
import { EXIT } from './exit-codes.js';

/** Finds the node that runs with `home`, or says in one line why there is none (and removes a stale pid file). */
function runningPid(home: string): number | null {
  const file = new HomeLayout(home).pidFile;
  const now = readPidFile(file);
  if (now.state === 'running') return now.pid;
  if (now.state === 'absent') {
    process.stderr.write(`sluice: no Sluice runs with the home ${home} (no pid file ${file}; is it started with another --home?)\n`);
  } else {
    fs.rmSync(file, { force: true });
    process.stderr.write(`sluice: no Sluice runs with the home ${home}: ${now.why}; the stale pid file ${file} was removed\n`);
  }
  return null;
}

const alive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true; } catch { return false; }
};

export interface StopOptions {
  readonly home: string;
  /** Seconds to wait for the node to finish its calls in flight and exit. */
  readonly timeoutS: number;
}

/** `sluice stop`: SIGTERM to the node of the home (it drains calls in flight), then waits until it has exited. */
export async function stopCommand(opts: StopOptions): Promise<number> {
  const pid = runningPid(opts.home);
  if (pid === null) return EXIT.NOT_RUNNING;
  process.kill(pid, 'SIGTERM');
  process.stderr.write(`sluice: stopping pid ${pid} (finishing calls in flight)\n`);
  const end = Date.now() + opts.timeoutS * 1000;
  while (alive(pid)) {
    if (Date.now() > end) {
      process.stderr.write(`sluice: pid ${pid} still runs after ${opts.timeoutS} s; it may still be finishing calls ([passthru_http] graceful_stop_timeout). Wait, or end it with kill -KILL ${pid}\n`);
      return EXIT.FAILURE;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // A node that exits cleanly removes its pid file; one that died on the way may not have.
  const file = new HomeLayout(opts.home).pidFile;
  const left = readPidFile(file);
  if (left.state === 'stale' && left.pid === pid) fs.rmSync(file, { force: true });
  process.stdout.write(`sluice: stopped (pid ${pid})\n`);
  return EXIT.OK;
}

/**
 * `sluice reload`: checks deployment.toml with the loader the node uses, then sends SIGHUP. A file that does
 * not load is reported here and no signal is sent (the node would refuse it too and keep its configuration).
 */
export function reloadCommand(opts: { readonly home: string }): number {
  const pid = runningPid(opts.home);
  if (pid === null) return EXIT.NOT_RUNNING;
  try {
    loadConfig(opts.home);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const e of err.issues) process.stderr.write(`error: ${formatIssue(e)}\n`);
    process.stderr.write(`sluice: not reloaded: the configuration is not valid; pid ${pid} keeps the one it runs\n`);
    return EXIT.INVALID;
  }
  process.kill(pid, 'SIGHUP');
  process.stdout.write(`sluice: reload signal (SIGHUP) sent to pid ${pid}; its log says which keys were applied and which need a restart\n`);
  return EXIT.OK;
}
