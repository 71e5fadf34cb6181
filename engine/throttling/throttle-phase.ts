import type { Logger } from 'pino';
import type { AuthContext, Call } from '../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../kernel/phase.js';
import type { SharedState } from '../kernel/shared-state.js';
import { subscribeCalls, unsubscribeCalls } from '../kernel/call-events.js';
import { LEVEL_ERROR } from './errors.js';
import { STATE_COUNTERS, STATE_POLICIES, type CountersState } from './messages.js';
import type { PolicySnapshot } from './policy-set.js';
import { ThrottleEvaluator } from './throttle-evaluator.js';
import { ThrottleReporter } from './throttle-reporter.js';
import { numberField } from '../../transport/number-lines.js';
import { turnNow } from '../../transport/event-turn.js';

/** The rate-limit fields (with `[apim.throttling] rate_limit_headers`): names checked once, values numbers. */
const RATE_LIMIT_LIMIT = numberField('X-RateLimit-Limit');
const RATE_LIMIT_REMAINING = numberField('X-RateLimit-Remaining');
const RATE_LIMIT_RESET = numberField('X-RateLimit-Reset');

/**
 * The throttle phase (after authorize, before the backend JWT): block conditions, then the API-level and
 * resource-level advanced policies, the subscription policy (burst control, then quota), the application
 * policy, custom policies and the backend's hard limit. Each level counts the call in its window with one
 * compare-and-swap in the node's shared counter table; a level that refuses gives back what the earlier
 * levels took, answers through _throttle_out_handler_ with Retry-After, and reports the decision once per
 * key and window. Calls that pass carry X-RateLimit-* headers of the tightest level.
 *
 * The phase takes the io thread's throttling state, asks the evaluator (throttle-evaluator.ts) for the
 * verdict and answers the call from it; reports to the main thread go through the reporter
 * (throttle-reporter.ts).
 *
 * Without the throttling extension's state (a gateway started without it) the phase is not in the list.
 */
export class ThrottlePhase implements GatewayPhase {
  readonly name = 'throttle';
  private readonly reporter: ThrottleReporter;
  private readonly evaluator: ThrottleEvaluator;
  private bandwidthSubscribed = false;

  constructor(state: SharedState, log: Logger) {
    this.reporter = new ThrottleReporter(log);
    this.evaluator = new ThrottleEvaluator(this.reporter, log);
    state.on(STATE_COUNTERS, (v) => this.useCounters(v as CountersState));
    state.on(STATE_POLICIES, (v) => this.usePolicies(v as PolicySnapshot));
  }

  /** Whether the node runs throttling (its state keys were in the io thread's init). */
  static enabled(state: SharedState): boolean {
    return state.get(STATE_COUNTERS) !== undefined;
  }

  private useCounters(c: CountersState): void {
    this.evaluator.useCounters(c);
    this.reporter.connect(c.channel);
  }

  private usePolicies(s: PolicySnapshot): void {
    this.evaluator.usePolicies(s);
    const hasBandwidth = this.evaluator.hasBandwidth;
    if (hasBandwidth && !this.bandwidthSubscribed) {
      subscribeCalls(this.onCallDone);
      this.bandwidthSubscribed = true;
    } else if (!hasBandwidth && this.bandwidthSubscribed) {
      unsubscribeCalls(this.onCallDone);
      this.bandwidthSubscribed = false;
    }
  }

  onRequest(ctx: Call): PhaseResult {
    const ev = this.evaluator;
    const api = ctx.api;
    const resource = ctx.resource;
    if (!ev.ready || api === null || resource === null) return PhaseResult.CONTINUE;
    const now = turnNow();
    if (!ev.evaluate(ctx, api.def, resource.def, now)) {
      this.throttleOut(ctx, now);
      return PhaseResult.STOP;
    }
    if (ev.bestRemaining >= 0 && ev.rateLimitHeaders) {
      ctx.addResponseNumbers([
        RATE_LIMIT_LIMIT, ev.bestLimit,
        RATE_LIMIT_REMAINING, ev.bestRemaining,
        RATE_LIMIT_RESET, Math.max(1, Math.ceil(ev.bestResetMs / 1000)),
      ]);
    }
    return PhaseResult.CONTINUE;
  }

  /**
   * A WebSocket message of a session (engine/websocket/shared-message-throttle.ts), counted as the
   * evaluator's countMessage says. False: refused; `refusal` says by which level and for how long.
   */
  countMessage(now: number, auth: AuthContext, apiId: string, refusal: { code: number; retryAfterMs: number }): boolean {
    return this.evaluator.countMessage(now, auth, apiId, refusal);
  }

  /** Whether a session with these policies is throttled at all (neither policy resolves: no). */
  limitsMessages(auth: AuthContext): boolean {
    return this.evaluator.limitsMessages(auth);
  }

  /** Answers a refused call: the level's fault, with Retry-After and (when on) the X-RateLimit-* headers. */
  private throttleOut(ctx: Call, now: number): void {
    const ev = this.evaluator;
    const error = LEVEL_ERROR[ev.refusedLevel];
    const q = ev.refusedQuota;
    if (q === null) { ctx.raise(error); return; }
    const resetMs = ev.retryMs;
    const retry = String(Math.max(1, Math.ceil(resetMs / 1000)));
    if (ev.rateLimitHeaders) {
      ctx.addResponseNumbers([RATE_LIMIT_LIMIT, q.limit, RATE_LIMIT_REMAINING, 0, RATE_LIMIT_RESET, Math.max(1, Math.ceil(resetMs / 1000))]);
    }
    ctx.raise(error, {
      description: `${error.description}. You can access the API again after ${new Date(now + resetMs).toISOString()}`,
      headers: [['Retry-After', retry]],
    });
  }

  /** Bandwidth policies: the response's bytes are charged when the call ends. */
  private readonly onCallDone = (message: unknown): void => {
    this.evaluator.chargeResponse(message as Call);
  };
}
