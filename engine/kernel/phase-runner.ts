import type { Logger } from 'pino';
import { GatewayError } from '../../errors/gateway.js';
import { faultOf } from '../../errors/error-entry.js';
import type { Call } from './call.js';
import { PhaseResult, type Pipeline } from './phase.js';

/** A call as the runner moves it through the pipeline: its place in the list. */
export interface RunnableCall extends Call {
  /** The next phase to run, an index into the pipeline. */
  phaseIndex: number;
}

/**
 * Runs the pipeline from the call's place. True when every phase continued: the terminal step (the sender,
 * or a WebSocket handshake) is next. False when a phase answered (STOP) or will go on later (SUSPEND, then
 * `call.proceed()` runs the rest).
 *
 * The runner keeps the phase contract (phase.ts): a phase that throws is a bug, answered 500
 * (PHASE_FAILED); a phase that returns STOP without having answered the call is a bug too, answered 500
 * (PHASE_DECLINED) rather than left hanging. Both name the phase, in the log and in the description.
 */
export function runPhases(call: RunnableCall, pipeline: Pipeline, log: Logger): boolean {
  const steps = pipeline.steps;
  while (call.phaseIndex < steps.length) {
    const i = call.phaseIndex++;
    let r: PhaseResult;
    try {
      r = steps[i]!(call);
    } catch (err) {
      const name = pipeline.names[i] ?? String(i);
      log.error({ phase: name, err: (err as Error).message, stack: (err as Error).stack }, 'phase failed');
      call.fault(faultOf(GatewayError.PHASE_FAILED, { description: `Error while processing the request (${name})` }));
      return false;
    }
    if (r === PhaseResult.CONTINUE) continue;
    if (r === PhaseResult.STOP && !call.finished) {
      const name = pipeline.names[i] ?? String(i);
      log.error({ phase: name, path: call.path }, 'phase returned STOP without answering the call; answered 500 for it');
      call.fault(faultOf(GatewayError.PHASE_DECLINED, { description: `The gateway phase ${name} stopped the call without answering it` }));
    }
    return false;
  }
  return true;
}
