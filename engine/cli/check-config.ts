import { loadConfig } from '../../conf/loader.js';
import { ConfigError, formatIssue } from '../../conf/errors.js';
import { unusedKeys } from '../../conf/typed-config.js';
import { checkPolicyFiles } from '../throttling/check.js';

export interface CheckConfigOptions {
  readonly home: string;
  readonly strict: boolean;
  readonly print: boolean;
}

/** `sluice check-config`: exit 0 when the file is usable, 2 when it is not. Messages go to stderr. */
export function checkConfigCommand(opts: CheckConfigOptions): number {
  let config;
  try {
    config = loadConfig(opts.home, { strict: opts.strict });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const w of err.warnings) process.stderr.write(`warning: ${formatIssue(w)}\n`);
    for (const e of err.issues) process.stderr.write(`error: ${formatIssue(e)}\n`);
    process.stderr.write(`${err.issues.length} error(s): the configuration is not valid\n`);
    return 2;
  }
  for (const w of config.warnings) process.stderr.write(`warning: ${formatIssue(w)}\n`);
  const unused = unusedKeys(config);
  if (unused.length) {
    process.stderr.write(`note: ${unused.length} key(s) you set are accepted for compatibility but have no effect in Sluice: ${unused.join(', ')}\n`);
  }
  // Throttling policy files (<home>/repository/deployment/server/policies/*.toml).
  const policyProblems = checkPolicyFiles(config.home.policiesDir);
  for (const p of policyProblems) process.stderr.write(`error: ${p}\n`);
  if (policyProblems.length) { process.stderr.write(`${policyProblems.length} policy file(s) not valid\n`); return 2; }
  if (opts.print) process.stdout.write(JSON.stringify(config.effective(), null, 2) + '\n');
  process.stderr.write(`configuration OK: ${config.file}${config.warnings.length ? ` (${config.warnings.length} warning(s))` : ''}\n`);
  return 0;
}
