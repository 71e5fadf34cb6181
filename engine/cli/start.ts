import { loadConfig } from '../../conf/loader.js';
import { ConfigError, formatIssue } from '../../conf/errors.js';
import { startNode } from '../runtime/node.js';
import { claimPidFile } from './pid-file.js';
import { EXIT } from './exit-codes.js';

export interface StartOptions {
  readonly home: string;
  readonly sampleBackend: boolean;
  readonly strict: boolean;
}

/**
 * `sluice start`: load and validate the configuration, claim the home's pid file (repository/sluice.pid, for
 * `sluice stop` and `sluice reload`), start the roles, run until a signal.
 */
export async function startCommand(opts: StartOptions): Promise<number> {
  let config;
  try {
    config = loadConfig(opts.home, { strict: opts.strict });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const e of err.issues) process.stderr.write(`error: ${formatIssue(e)}\n`);
    process.stderr.write('sluice: not started: the configuration is not valid (run sluice check-config for details)\n');
    return EXIT.INVALID;
  }
  // Claimed before the roles start: a stop asked while they start (a gateway-worker's first pull) is honoured.
  let pid;
  try {
    pid = claimPidFile(config.home.pidFile);
  } catch (err) {
    process.stderr.write(`sluice: not started: ${(err as Error).message}\n`);
    return EXIT.FAILURE;
  }
  if (pid.replacedStale) process.stderr.write(`sluice: replaced a stale pid file (${pid.replacedStale})\n`);
  process.once('exit', pid.release);
  let node;
  try {
    node = await startNode(config, { sampleBackend: opts.sampleBackend });
  } catch (err) {
    pid.release();
    process.stderr.write(`sluice: not started: ${(err as Error).message}\n`);
    return EXIT.FAILURE;
  }
  const code = await node.closed;
  pid.release();
  return code;
}
