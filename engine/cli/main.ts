import { parseArgs } from 'node:util';
import { chooseHome } from '../../conf/home.js';
import { checkConfigCommand } from './check-config.js';
import { CliUsageError } from './cli-error.js';
import { EXIT } from './exit-codes.js';
import { COMMAND_HELP, GENERAL_HELP } from './help.js';
// start, bench and import load the runtime, autocannon or the OpenAPI parsers: imported when used, so that
// check-config, stop and reload start in a fraction of the time.

const HELP_FLAGS = new Set(['--help', '-h']);

/** A command's help; own entries only (`sluice help constructor` must not find what every object inherits). */
function helpOf(command: string): string | undefined {
  return Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || HELP_FLAGS.has(command)) {
    process.stdout.write(GENERAL_HELP);
    return command === undefined ? EXIT.INVALID : EXIT.OK;
  }
  if (command === 'help') {
    const topic = rest[0];
    if (topic === undefined) { process.stdout.write(GENERAL_HELP); return EXIT.OK; }
    const text = helpOf(topic);
    if (!text) throw new CliUsageError(`no help for "${topic}": the commands are ${Object.keys(COMMAND_HELP).join(', ')}`);
    process.stdout.write(text);
    return EXIT.OK;
  }
  if (command === '--version' || command === '-v') {
    const { SLUICE_VERSION } = await import('../../conf/version.js');
    process.stdout.write(`sluice ${SLUICE_VERSION}\n`);
    return EXIT.OK;
  }
  // `sluice <command> --help` anywhere on the line wins over every other option (as git and kong do).
  const help = helpOf(command);
  if (help !== undefined && rest.some((a) => HELP_FLAGS.has(a))) {
    process.stdout.write(help);
    return EXIT.OK;
  }
  const home = { type: 'string' } as const;
  switch (command) {
    case 'check-config': {
      const { values } = parseArgs({ args: rest, options: { home, strict: { type: 'boolean' }, print: { type: 'boolean' } } });
      return checkConfigCommand({ home: chooseHome(values.home), strict: values.strict ?? false, print: values.print ?? false });
    }
    case 'start': {
      const { values } = parseArgs({ args: rest, options: { home, 'with-sample-backend': { type: 'boolean' }, strict: { type: 'boolean' } } });
      const { startCommand } = await import('./start.js');
      return startCommand({ home: chooseHome(values.home), sampleBackend: values['with-sample-backend'] ?? false, strict: values.strict ?? false });
    }
    case 'stop': {
      const { values } = parseArgs({ args: rest, options: { home, timeout: { type: 'string' } } });
      const timeoutS = Number(values.timeout ?? 60);
      if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new CliUsageError('--timeout takes a positive number of seconds');
      const { stopCommand } = await import('./signal-node.js');
      return stopCommand({ home: chooseHome(values.home), timeoutS });
    }
    case 'reload': {
      const { values } = parseArgs({ args: rest, options: { home } });
      const { reloadCommand } = await import('./signal-node.js');
      return reloadCommand({ home: chooseHome(values.home) });
    }
    case 'import': {
      const { values, positionals } = parseArgs({
        args: rest, allowPositionals: true,
        options: {
          home, context: { type: 'string' }, version: { type: 'string' }, backend: { type: 'string' }, name: { type: 'string' },
          'auth-type': { type: 'string' }, force: { type: 'boolean' }, 'dry-run': { type: 'boolean' },
        },
      });
      const [kind, spec, ...extra] = positionals;
      if (kind !== 'openapi') throw new CliUsageError(kind === undefined ? 'import needs what to import: sluice import openapi <spec.json|yaml>' : `cannot import "${kind}": only openapi`);
      if (spec === undefined) throw new CliUsageError('import openapi needs the specification file: sluice import openapi <spec.json|yaml>');
      if (extra.length) throw new CliUsageError(`unexpected argument "${extra[0]}"`);
      const { importOpenApiCommand } = await import('./import-openapi.js');
      return importOpenApiCommand({
        home: chooseHome(values.home), spec, context: values.context, version: values.version, backend: values.backend, name: values.name,
        authType: values['auth-type'], force: values.force ?? false, dryRun: values['dry-run'] ?? false,
      });
    }
    case 'bench': {
      const { values } = parseArgs({ args: rest, options: {
        url: { type: 'string' }, connections: { type: 'string' }, duration: { type: 'string' },
        header: { type: 'string', multiple: true }, method: { type: 'string' }, body: { type: 'string' },
      } });
      const { benchCommand } = await import('./bench.js');
      return benchCommand(values);
    }
    default:
      throw new CliUsageError(`unknown command "${command}"; see sluice --help`);
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    // User errors get one line; anything else is a bug and keeps its stack for the report.
    // node:util parseArgs reports bad command lines (unknown option, missing value, stray argument) as
    // ERR_PARSE_ARGS_*: those are usage errors too.
    if (err instanceof CliUsageError || String((err as { code?: unknown })?.code).startsWith('ERR_PARSE_ARGS_')) {
      process.stderr.write(`sluice: ${(err as Error).message}\n`);
      process.exitCode = EXIT.INVALID;
    } else {
      process.stderr.write(`sluice: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = EXIT.INTERNAL;
    }
  },
);
