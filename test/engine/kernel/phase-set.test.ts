// The phase list made for an io thread (engine/kernel/phase.ts PhaseSet): entries enabled by the env, each
// phase made once and kept across recompiles (phases hold caches and state handlers), the list's order kept.
import t from 'tap';
import { PhaseResult, PhaseSet, type PhaseSpec } from '../../../engine/kernel/phase.js';
import { phaseOf } from '../../helpers/inject.js';

interface Env { tracing: boolean; throttling: boolean }

function spec(name: string, enabledWhen: (e: Env) => boolean, made: string[]): PhaseSpec<Env> {
  return { name, doc: `${name} phase`, enabledWhen, make: () => { made.push(name); return phaseOf(name, () => PhaseResult.CONTINUE); } };
}

t.test('only enabled entries, in the list\'s order; each made once however often it is compiled', async (t) => {
  const made: string[] = [];
  const env: Env = { tracing: false, throttling: true };
  const set = new PhaseSet([spec('resolve', () => true, made), spec('throttle', (e) => e.throttling, made), spec('trace', (e) => e.tracing, made)], env);
  t.same(set.compile().names, ['resolve', 'throttle']);
  env.tracing = true;
  t.same(set.compile().names, ['resolve', 'throttle', 'trace'], 'trace switched on: appended at its place, the last');
  env.tracing = false;
  t.same(set.compile().names, ['resolve', 'throttle']);
  env.tracing = true;
  set.compile();
  t.same(made, ['resolve', 'throttle', 'trace'], 'no phase made twice');
  t.ok(set.phase('throttle'), 'a made phase can be found by name');
  t.equal(set.phase('missing'), undefined);
});

t.test('an entry that makes a phase of another name is refused', async (t) => {
  const set = new PhaseSet<Env>([{ name: 'a', doc: '', enabledWhen: () => true, make: () => phaseOf('b', () => PhaseResult.CONTINUE) }], { tracing: false, throttling: false });
  t.throws(() => set.compile(), /entry a made a phase named b/);
});
