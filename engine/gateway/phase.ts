import type { MessageContext } from './message-context.js';

/**
 * What a phase tells the pipeline:
 * - CONTINUE: go on with the next phase;
 * - STOP: the phase answered the call (a fault, a CORS preflight reply) and nothing more runs;
 * - SUSPEND: the phase finishes later (a token check in a worker thread) and then calls `ctx.proceed()`
 *   or raises a fault itself.
 */
export const PhaseResult = {
  CONTINUE: 0,
  STOP: 1,
  SUSPEND: 2,
} as const;
export type PhaseResult = (typeof PhaseResult)[keyof typeof PhaseResult];

/**
 * One step a request passes on its way to the backend, in a fixed order (engine/gateway/pipeline.ts):
 * resolve the API and resource, CORS, authenticate, authorize, throttle, backend JWT, in-sequence. The
 * sender is the terminal step. A phase is small, synchronous on its common path, and either continues or
 * short-circuits with a fault.
 */
export interface GatewayPhase {
  readonly name: string;
  onRequest(ctx: MessageContext): PhaseResult;
}

/**
 * A phase's onRequest bound to the phase. The pipeline calls these: a method lookup on ten phase classes
 * from one call site is a megamorphic property load on every phase of every call.
 */
export type PhaseStep = (ctx: MessageContext) => PhaseResult;

export function stepsOf(phases: readonly GatewayPhase[]): PhaseStep[] {
  return phases.map((p) => p.onRequest.bind(p));
}
