import type { Call } from './call.js';

/**
 * What a phase tells the runner (phase-runner.ts), the contract of every phase:
 * - CONTINUE: the call goes on with the next phase (after the last one, the terminal step: the sender);
 * - STOP: the phase has answered the call (a fault, a CORS preflight reply, a sequence's response) and
 *   nothing more runs. A STOP without an answer is a bug: the runner answers 500 (PHASE_DECLINED) naming
 *   the phase, as Pingora answers for a phase that declined without writing a response;
 * - SUSPEND: the phase finishes later (a token checked in a worker thread, a body being read) and then
 *   calls `call.proceed()` to go on, or answers the call itself.
 */
export const PhaseResult = {
  CONTINUE: 0,
  STOP: 1,
  SUSPEND: 2,
} as const;
export type PhaseResult = (typeof PhaseResult)[keyof typeof PhaseResult];

/**
 * One step a request passes on its way to the backend, in the order of the phase list
 * (engine/gateway/phase-list.ts). A phase is small, synchronous on its common path, reads and sets the call's
 * facts, and either continues or answers the call. It never writes to the client itself: it answers through
 * the call (`fault`, `raise`, `respond`).
 */
export interface GatewayPhase {
  readonly name: string;
  onRequest(call: Call): PhaseResult;
}

/**
 * One entry of the phase list: the phase's name, what it does and what its results mean (`doc`, shown in
 * docs/architecture.md and in the log when it fails), whether a node's configuration needs it, and how to make
 * it for an io thread. `Env` is what the io thread offers its phases (engine/gateway/phase-env.ts).
 */
export interface PhaseSpec<Env> {
  readonly name: string;
  readonly doc: string;
  /** False: the phase is left out of the pipeline (it would only ever CONTINUE). */
  enabledWhen(env: Env): boolean;
  make(env: Env): GatewayPhase;
}

/** A phase's onRequest bound to it: one call through a closure per phase, instead of a megamorphic method load. */
export type PhaseStep = (call: Call) => PhaseResult;

/** The phases a call runs, in order: replaced whole (never edited) when the enabled set changes. */
export interface Pipeline {
  readonly names: readonly string[];
  readonly steps: readonly PhaseStep[];
}

/**
 * The phase list made for one io thread. Each phase is made once, the first time it is enabled, and kept
 * (phases hold caches and state handlers); `compile` picks the enabled ones in the list's order. An entry
 * whose `enabledWhen` changes while the node runs (trace, with telemetry switched on or off) must come last:
 * a call in flight holds its place by index, and only the tail may change under it.
 */
export class PhaseSet<Env> {
  private readonly made = new Map<string, GatewayPhase>();

  constructor(private readonly specs: readonly PhaseSpec<Env>[], private readonly env: Env) {}

  compile(): Pipeline {
    const phases: GatewayPhase[] = [];
    for (const s of this.specs) {
      if (!s.enabledWhen(this.env)) continue;
      let p = this.made.get(s.name);
      if (p === undefined) {
        p = s.make(this.env);
        if (p.name !== s.name) throw new Error(`the phase list entry ${s.name} made a phase named ${p.name}`);
        this.made.set(s.name, p);
      }
      phases.push(p);
    }
    return { names: phases.map((p) => p.name), steps: phases.map((p) => p.onRequest.bind(p)) };
  }

  /** The phase made for an entry, if it is enabled (or was): another part may share its state (WebSocket messages count in the throttle's counters). */
  phase(name: string): GatewayPhase | undefined {
    return this.made.get(name);
  }
}
