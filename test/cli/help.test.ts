import t from 'tap';
import { requireBuild } from '../fixtures/sluice-process.js';
import { cli } from './helpers.js';

requireBuild();

const COMMANDS = ['start', 'stop', 'reload', 'check-config', 'import', 'bench'];

t.test('every command answers --help and -h on stdout with exit 0: usage, options and examples', async (t) => {
  for (const c of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      const r = await cli([c, flag]);
      t.equal(r.status, 0, `sluice ${c} ${flag}: exit 0 (${r.stderr})`);
      t.match(r.stdout, new RegExp(`^Usage: sluice ${c}`), `sluice ${c} ${flag}: usage line`);
      t.match(r.stdout, /\nOptions:\n/, `sluice ${c} ${flag}: options`);
      t.match(r.stdout, /\nExamples:\n {2}sluice /, `sluice ${c} ${flag}: examples`);
      t.equal(r.stderr, '', `sluice ${c} ${flag}: nothing on stderr`);
    }
  }
});

t.test('--help wins over the other options, even bad ones', async (t) => {
  const r = await cli(['start', '--home', '/nonexistent', '--no-such-option', '--help']);
  t.equal(r.status, 0);
  t.match(r.stdout, /^Usage: sluice start/);
});

t.test('each command\'s help names every option the command takes', async (t) => {
  const want: Record<string, string[]> = {
    start: ['--home', '--strict', '--with-sample-backend'],
    stop: ['--home', '--timeout'],
    reload: ['--home'],
    'check-config': ['--home', '--strict', '--print'],
    import: ['--home', '--context', '--version', '--backend', '--name', '--auth-type', '--force', '--dry-run'],
    bench: ['--url', '--connections', '--duration', '--method', '--body', '--header'],
  };
  for (const [c, options] of Object.entries(want)) {
    const r = await cli([c, '--help']);
    for (const o of options) t.match(r.stdout, new RegExp(`\\n {2}${o}\\b`), `sluice ${c} --help lists ${o}`);
  }
});

t.test('sluice help <command> is the same text; sluice --help lists the commands and the exit codes', async (t) => {
  const a = await cli(['help', 'stop']);
  const b = await cli(['stop', '--help']);
  t.equal(a.status, 0);
  t.equal(a.stdout, b.stdout);
  const g = await cli(['--help']);
  t.equal(g.status, 0);
  for (const c of COMMANDS) t.match(g.stdout, new RegExp(`\\n {2}${c}\\b`), `the general help lists ${c}`);
  t.match(g.stdout, /Exit codes: 0 .*1 .*2 .*3 .*70/s);
});

t.test('a bad command line is one line on stderr and exit 2, never a stack trace', async (t) => {
  for (const args of [['frobnicate'], ['start', '--bogus'], ['stop', '--timeout', 'soon'], ['import'], ['import', 'raml', 'x.raml'], ['help', 'nothing'],
    // Names every object inherits (test/fixtures/attacks/object-keys.json) are no commands either.
    ['help', 'constructor'], ['help', 'toString'], ['help', '__proto__'], ['constructor', '--help'], ['toString', '-h'], ['__proto__']]) {
    const r = await cli(args);
    t.equal(r.status, 2, `${args.join(' ')}: exit 2`);
    t.match(r.stderr, /^sluice: /, `${args.join(' ')}: one line`);
    t.notMatch(r.stderr, /\n\s+at /, `${args.join(' ')}: no stack`);
  }
});
