import { loadConfig } from '../../conf/loader.js';
import { ConfigError, formatIssue } from '../../conf/errors.js';
import { keyManagerAccessView, unusedKeys } from '../../conf/typed-config.js';
import { checkApiFiles, declarativeFiles, type FileCheck } from '../registry/check.js';
import { checkApplicationFiles } from '../keymanager/check.js';
import { checkPolicyFiles } from '../throttling/check.js';
import { silentLogger } from '../log/logger.js';
import { SequenceRepository } from '../../mediation/repository.js';
import { EXIT } from './exit-codes.js';

export interface CheckConfigOptions {
  readonly home: string;
  readonly strict: boolean;
  readonly print: boolean;
}

/** The sequences folder through the repository hot deployment uses: parse errors, unknown keys, cycles, clashes. */
function checkSequenceFiles(dir: string): FileCheck {
  const repo = new SequenceRepository({ dir, logger: silentLogger() });
  repo.rescan();
  return { errors: repo.errors().map((e) => e.message), warnings: [], files: declarativeFiles(dir, '.xml').length };
}

/**
 * `sluice check-config`: deployment.toml, then every declarative file of the home (APIs, applications,
 * policies, sequences), each with the loader the running node uses, so that what this command accepts is
 * what start and hot deployment accept. Exit 0 when all is valid, 2 when anything is not. Messages go to
 * stderr; --print writes the effective configuration on stdout.
 */
export function checkConfigCommand(opts: CheckConfigOptions): number {
  let config;
  try {
    config = loadConfig(opts.home, { strict: opts.strict });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const w of err.warnings) process.stderr.write(`warning: ${formatIssue(w)}\n`);
    for (const e of err.issues) process.stderr.write(`error: ${formatIssue(e)}\n`);
    process.stderr.write(`${err.issues.length} error(s): the configuration is not valid\n`);
    return EXIT.INVALID;
  }
  for (const w of config.warnings) process.stderr.write(`warning: ${formatIssue(w)}\n`);
  const unused = unusedKeys(config);
  if (unused.length) {
    process.stderr.write(`note: ${unused.length} key(s) you set are accepted for compatibility but have no effect in Sluice: ${unused.join(', ')}\n`);
  }
  const home = config.home;
  const kinds: [string, FileCheck][] = [
    ['API', checkApiFiles(home.apisDir)],
    ['application', checkApplicationFiles(home.applicationsDir, keyManagerAccessView(config).superAdmin.username)],
    ['policy', checkPolicyFiles(home.policiesDir)],
    ['sequence', checkSequenceFiles(home.sequencesDir)],
  ];
  let errors = 0;
  const counts: string[] = [];
  for (const [kind, c] of kinds) {
    for (const w of c.warnings) process.stderr.write(`warning: ${w}\n`);
    for (const e of c.errors) process.stderr.write(`error: ${e}\n`);
    errors += c.errors.length;
    counts.push(`${c.files} ${kind} file(s)`);
  }
  if (errors) {
    process.stderr.write(`${errors} error(s): ${kinds.filter(([, c]) => c.errors.length).map(([k, c]) => `${c.errors.length} in ${k} files`).join(', ')}\n`);
    return EXIT.INVALID;
  }
  if (opts.print) process.stdout.write(JSON.stringify(config.effective(), null, 2) + '\n');
  const warnings = config.warnings.length + kinds.reduce((n, [, c]) => n + c.warnings.length, 0);
  process.stderr.write(`configuration OK: ${config.file} and ${counts.join(', ')}${warnings ? ` (${warnings} warning(s))` : ''}\n`);
  return EXIT.OK;
}
