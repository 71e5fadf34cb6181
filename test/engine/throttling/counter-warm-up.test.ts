import t from 'tap';
import { spawn } from 'node:child_process';
import { requireBuild } from '../../fixtures/sluice-process.js';

/**
 * Runs the built counter table in a child node with --trace-deopt: a count optimized on the window its word
 * holds, then the roll-over to the next window. Returns the trace's deoptimizations of `acquire`.
 */
async function deoptsAtRollOver(warmUp: boolean): Promise<{ deopts: string[]; out: string }> {
  const tableUrl = new URL('../../../dist/engine/throttling/counter-table.js', import.meta.url).href;
  const warmUrl = new URL('../../../dist/engine/throttling/counter-warm-up.js', import.meta.url).href;
  const script = `
    const { CounterTable, createSharedCounters } = await import(${JSON.stringify(tableUrl)});
    const { warmUpCounterPaths } = await import(${JSON.stringify(warmUrl)});
    ${warmUp ? 'warmUpCounterPaths();' : ''}
    const t = new CounterTable(createSharedCounters(1024));
    const slot = t.slotOf({ hi: 5, lo: 7 });
    let n = 0;
    for (let i = 0; i < 2e6; i++) if (t.acquire(slot, 1, 1e9, 1)) n++;
    console.log('=== roll-over');
    for (let i = 0; i < 10; i++) if (t.acquire(slot, 2, 1e9, 1)) n++;
    console.log('counted', n);`;
  const child = spawn(process.execPath, ['--trace-deopt', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { out += String(d); });
  await new Promise((resolve) => child.on('exit', resolve));
  const after = out.slice(out.indexOf('=== roll-over'));
  return { deopts: after.split('\n').filter((l) => /deoptimizing .*<JSFunction acquire\b/.test(l)), out };
}

t.test('the warmed-up counter table rolls over to a new window without deoptimizing the count', async (t) => {
  requireBuild();
  const warm = await deoptsAtRollOver(true);
  t.match(warm.out, /counted 2000010/, 'the child counted every call');
  t.same(warm.deopts, [], 'no deoptimization of acquire at the roll-over');
  // The control: without the warm-up the roll-over's path has no type feedback, and V8 deoptimizes there.
  // If this ever passes without it, the warm-up is no longer needed.
  const cold = await deoptsAtRollOver(false);
  t.ok(cold.deopts.length > 0, `without the warm-up acquire deoptimizes at the roll-over (${cold.deopts.length})`);
});
