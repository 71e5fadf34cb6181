// The phase list (engine/gateway/phase-list.ts): one entry per phase, each saying what it does, in the order
// DESIGN.md gives, the live-switched trace phase last.
import t from 'tap';
import { PHASES } from '../../../engine/gateway/phase-list.js';

t.test('one entry per phase, each with a doc of what it does and what its answers mean', async (t) => {
  const names = PHASES.map((p) => p.name);
  t.equal(new Set(names).size, names.length, 'names are unique');
  for (const p of PHASES) t.ok(p.doc.length > 40, `${p.name} has a doc`);
});

t.test('the order of a call: route, then CORS, authenticate, authorize, throttle, then the backend\'s concerns; trace last', async (t) => {
  const names = PHASES.map((p) => p.name);
  const before = (a: string, b: string) => t.ok(names.indexOf(a) >= 0 && names.indexOf(a) < names.indexOf(b), `${a} before ${b}`);
  before('resolve-api', 'cors');
  before('cors', 'authenticate');
  before('authenticate', 'authorize');
  before('authorize', 'throttle');
  before('throttle', 'backend-jwt');
  before('backend-jwt', 'in-sequence');
  t.equal(names[names.length - 1], 'trace', 'the entry switched on and off while the node runs is last (PhaseSet)');
});
