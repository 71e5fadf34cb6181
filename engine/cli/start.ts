import { loadConfig } from '../../conf/loader.js';
import { ConfigError, formatIssue } from '../../conf/errors.js';
import { startNode } from '../runtime/node.js';

export interface StartOptions {
  readonly home: string;
  readonly sampleBackend: boolean;
  readonly strict: boolean;
}

/** `sluice start`: load and validate the configuration, start the roles, run until a signal. */
export async function startCommand(opts: StartOptions): Promise<number> {
  let config;
  try {
    config = loadConfig(opts.home, { strict: opts.strict });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const e of err.issues) process.stderr.write(`error: ${formatIssue(e)}\n`);
    process.stderr.write('sluice: not started: the configuration is not valid (run sluice check-config for details)\n');
    return 2;
  }
  let node;
  try {
    node = await startNode(config, { sampleBackend: opts.sampleBackend });
  } catch (err) {
    process.stderr.write(`sluice: not started: ${(err as Error).message}\n`);
    return 1;
  }
  return node.closed;
}
