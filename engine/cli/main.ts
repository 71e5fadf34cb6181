import { parseArgs } from 'node:util';
import { chooseHome } from '../../conf/home.js';
import { checkConfigCommand } from './check-config.js';
import { CliUsageError } from './cli-error.js';
// start and bench load the whole runtime (listeners, sender, stores, autocannon): imported when used, so that
// check-config starts in a fraction of the time.

const HELP = `sluice: API gateway and OAuth2 token service

Usage:
  sluice start [--home DIR] [--with-sample-backend]
      Start the roles that server.server_role selects: gateway on the pass-through ports
      (8280 HTTP, 8243 HTTPS), key manager and admin API on the servlet ports (9443 HTTPS,
      9763 HTTP), each shifted by server.offset. Runs until SIGINT or SIGTERM.
  sluice check-config [--home DIR] [--strict] [--print]
      Validate <home>/repository/conf/deployment.toml. Exit 0 when valid, 2 when not.
      --strict  unknown keys are errors, not warnings
      --print   write the effective configuration (defaults and offsets applied, secrets
                masked) as JSON on stdout
  sluice bench [--url URL] [--connections N] [--duration S] [--header "K: V"]...
      Drive load at a URL with autocannon and print requests/s and latency percentiles.
  sluice --help | --version

The home is --home DIR, else $SLUICE_HOME, else ./home.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v') {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`sluice ${pkg.version}\n`);
    return 0;
  }
  switch (command) {
    case 'check-config': {
      const { values } = parseArgs({ args: rest, options: { home: { type: 'string' }, strict: { type: 'boolean' }, print: { type: 'boolean' } } });
      return checkConfigCommand({ home: chooseHome(values.home), strict: values.strict ?? false, print: values.print ?? false });
    }
    case 'start': {
      const { values } = parseArgs({ args: rest, options: { home: { type: 'string' }, 'with-sample-backend': { type: 'boolean' }, strict: { type: 'boolean' } } });
      const { startCommand } = await import('./start.js');
      return startCommand({ home: chooseHome(values.home), sampleBackend: values['with-sample-backend'] ?? false, strict: values.strict ?? false });
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
      process.exitCode = 2;
    } else {
      process.stderr.write(`sluice: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 70;
    }
  },
);
