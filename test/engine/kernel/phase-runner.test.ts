// The phase contract the runner keeps (engine/kernel/phase-runner.ts), in-process: each phase either
// continues, answers and stops, or suspends and goes on later; a phase that stops without answering, or
// throws, gets a 500 naming it instead of a call left hanging.
import pino from 'pino';
import t from 'tap';
import { PhaseResult } from '../../../engine/kernel/phase.js';
import { ApiHandlerError, GatewayError } from '../../../errors/index.js';
import { inject, phaseOf, testRuntime } from '../../helpers/inject.js';

t.test('phases that all continue reach the terminal step, in order', async (t) => {
  const seen: string[] = [];
  const rt = testRuntime([
    phaseOf('a', () => { seen.push('a'); return PhaseResult.CONTINUE; }),
    phaseOf('b', () => { seen.push('b'); return PhaseResult.CONTINUE; }),
  ]);
  const r = inject(rt, { path: '/x' });
  t.same(seen, ['a', 'b']);
  t.ok(r.reachedTerminal, 'the terminal step ran');
  t.equal(r.client.written.status, 0, 'nothing was written by the phases');
});

t.test('a phase that answers and stops ends the call there', async (t) => {
  const seen: string[] = [];
  const rt = testRuntime([
    phaseOf('deny', (call) => { call.raise(ApiHandlerError.RESOURCE_FORBIDDEN); return PhaseResult.STOP; }),
    phaseOf('after', () => { seen.push('after'); return PhaseResult.CONTINUE; }),
  ]);
  const r = inject(rt, { path: '/x' });
  t.same(seen, [], 'no phase after it ran');
  t.notOk(r.reachedTerminal);
  t.equal(r.client.written.status, 403);
  t.match(r.fault, { code: 900908, message: 'Resource forbidden' });
  t.ok(r.call.finished);
  t.equal(rt.done.length, 1, 'the call finished once');
});

t.test('a phase that stops without answering gets a 500 naming it (the runner answers for it)', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => { lines.push(JSON.parse(l) as Record<string, unknown>); } });
  const rt = testRuntime([phaseOf('forgetful', () => PhaseResult.STOP)], { log });
  const r = inject(rt, { path: '/x' });
  t.equal(r.client.written.status, 500);
  t.equal(r.fault?.code, GatewayError.PHASE_DECLINED.code);
  t.match(r.fault?.description, /forgetful/, 'the description names the phase');
  t.ok(r.call.finished, 'the call is over, not hanging');
  t.equal(lines.find((l) => String(l['msg']).includes('without answering'))?.['phase'], 'forgetful', 'the log names the phase');
});

t.test('a phase that throws gets a 500 naming it', async (t) => {
  const rt = testRuntime([phaseOf('buggy', () => { throw new TypeError('boom'); })]);
  const r = inject(rt, { path: '/x' });
  t.equal(r.client.written.status, 500);
  t.equal(r.fault?.code, GatewayError.PHASE_FAILED.code);
  t.match(r.fault?.description, /buggy/);
});

t.test('a phase that suspends goes on with the next phase when it calls proceed', async (t) => {
  const seen: string[] = [];
  let resume: (() => void) | null = null;
  const rt = testRuntime([
    phaseOf('later', (call) => { resume = () => call.proceed(); return PhaseResult.SUSPEND; }),
    phaseOf('next', () => { seen.push('next'); return PhaseResult.CONTINUE; }),
  ]);
  const r = inject(rt, { path: '/x' });
  t.same(seen, [], 'nothing ran while suspended');
  t.notOk(r.reachedTerminal);
  t.notOk(r.call.finished);
  resume!();
  t.same(seen, ['next'], 'the phase after it ran, once');
  t.ok(r.reachedTerminal);
});

t.test('a suspended phase that answers later ends the call without the rest', async (t) => {
  let answer: (() => void) | null = null;
  const rt = testRuntime([
    phaseOf('later', (call) => { answer = () => call.raise(ApiHandlerError.INVALID_CREDENTIALS); return PhaseResult.SUSPEND; }),
    phaseOf('never', () => { t.fail('ran after an answer'); return PhaseResult.CONTINUE; }),
  ]);
  const r = inject(rt, { path: '/x' });
  answer!();
  t.equal(r.client.written.status, 401);
  t.notOk(r.reachedTerminal);
});
