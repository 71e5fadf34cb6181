import { ApiHandlerError } from '../../errors/api-handler.js';
import type { ErrorEntry } from '../../errors/error-entry.js';
import type { AuthContext } from '../kernel/call.js';
import type { ApiDefinition } from '../registry/types.js';

/**
 * Throttling of WebSocket messages: each message a client sends through the gateway counts as one
 * request against the subscription's policy (burst control, then quota) and the application's policy,
 * as HTTP calls do. The handshake itself is an HTTP call and goes through the throttle phase when the
 * gateway has one.
 *
 * This is the seam between the WebSocket relay and the throttling engine: the relay asks `forSession` once
 * per connection and `admit` once per client message. SharedMessageThrottle counts in engine/throttling's
 * shared counters; `LocalMessageThrottle` (below), per io thread, is the fallback without that engine.
 */
export interface MessageThrottle {
  /**
   * What a new session's messages count against. null: nothing limits them (no token, or only
   * unlimited policies), and the relay skips throttling for this session entirely.
   */
  forSession(auth: AuthContext, api: ApiDefinition): SessionThrottle | null;
}

export interface SessionThrottle {
  /**
   * Counts one message. The verdict object is reused by the next call: read it before admitting another.
   * A refused message is not counted.
   */
  admit(now: number): ThrottleVerdict;
}

export interface ThrottleVerdict {
  allowed: boolean;
  /** Refused: the seed's code (SUBSCRIPTION_THROTTLED_OUT, BURST_THROTTLED_OUT, APPLICATION_THROTTLED_OUT). */
  code: number;
  /** Refused: the seed's message for the code. */
  message: string;
  /** Refused: ms until the window that refused it ends. */
  retryAfterMs: number;
}


// ---- the per-thread implementation ---------------------------------------------------------------------

/** A quota as the policy files give it (docs/throttling.md): `requests` per `unit_time` `time_unit`. */
export interface MessageQuota {
  readonly name: string;
  readonly requests: number;
  readonly windowMs: number;
  readonly stopOnQuotaReach: boolean;
  readonly burst: { readonly requests: number; readonly windowMs: number } | null;
}

/** Subscription and application policies by name: plain data, posted to io threads (WsPolicyState). */
export interface MessagePolicies {
  readonly subscription: readonly MessageQuota[];
  readonly application: readonly MessageQuota[];
}

export const WS_POLICY_STATE = 'websocket.policies';

interface Window {
  win: number;
  count: number;
  /** When it was last counted in, for the sweep. */
  touched: number;
}

const SEP = '\u001f';
const ALLOWED: ThrottleVerdict = { allowed: true, code: 0, message: '', retryAfterMs: 0 };

/**
 * Fixed windows (aligned on the epoch, like the throttle phase's) counted in this io thread only: with
 * N io threads a client can get up to N times a limit, depending on which thread its connections landed
 * on. Used only when the gateway runs without the throttling engine (SharedMessageThrottle otherwise).
 */
export class LocalMessageThrottle implements MessageThrottle {
  private subscription = new Map<string, MessageQuota>();
  private application = new Map<string, MessageQuota>();
  private readonly windows = new Map<string, Window>();
  private sweepAt = 0;
  private readonly verdict: ThrottleVerdict = { allowed: false, code: 0, message: '', retryAfterMs: 0 };

  setPolicies(p: MessagePolicies): void {
    this.subscription = new Map(p.subscription.map((q) => [q.name, q]));
    this.application = new Map(p.application.map((q) => [q.name, q]));
  }

  forSession(auth: AuthContext, api: ApiDefinition): SessionThrottle | null {
    const sub = this.subscription.get(auth.tier);
    const app = this.application.get(auth.applicationTier);
    if (sub === undefined && app === undefined) return null;
    const subKey = `${auth.application}${SEP}${api.id}${SEP}${auth.tier}`;
    const appKey = `${auth.application}${SEP}${auth.user}${SEP}${auth.applicationTier}`;
    const tierName = auth.tier;
    const appTierName = auth.applicationTier;
    return {
      // Policies are looked up by name on each message: a redeployed policy applies to open sessions.
      admit: (now) => this.admit(now, this.subscription.get(tierName), subKey, this.application.get(appTierName), appKey),
    };
  }

  private admit(now: number, sub: MessageQuota | undefined, subKey: string, app: MessageQuota | undefined, appKey: string): ThrottleVerdict {
    if (now >= this.sweepAt) this.sweep(now);
    let burst: Window | null = null;
    let quota: Window | null = null;
    if (sub !== undefined) {
      if (sub.burst !== null) {
        burst = this.window(`b${SEP}${subKey}`, now, sub.burst.windowMs);
        if (burst.count >= sub.burst.requests) return this.refuse(ApiHandlerError.BURST_THROTTLED_OUT, now, sub.burst.windowMs);
      }
      quota = this.window(`s${SEP}${subKey}`, now, sub.windowMs);
      if (quota.count >= sub.requests && sub.stopOnQuotaReach) return this.refuse(ApiHandlerError.SUBSCRIPTION_THROTTLED_OUT, now, sub.windowMs);
    }
    if (app !== undefined) {
      const w = this.window(`p${SEP}${appKey}`, now, app.windowMs);
      if (w.count >= app.requests) return this.refuse(ApiHandlerError.APPLICATION_THROTTLED_OUT, now, app.windowMs);
      w.count++;
    }
    if (burst !== null) burst.count++;
    if (quota !== null) quota.count++;
    return ALLOWED;
  }

  private window(key: string, now: number, windowMs: number): Window {
    const win = Math.floor(now / windowMs);
    let w = this.windows.get(key);
    if (w === undefined) { w = { win, count: 0, touched: now }; this.windows.set(key, w); }
    else if (w.win !== win) { w.win = win; w.count = 0; }
    w.touched = now;
    return w;
  }

  private refuse(error: ErrorEntry, now: number, windowMs: number): ThrottleVerdict {
    const v = this.verdict;
    v.code = error.code;
    v.message = error.message;
    v.retryAfterMs = (Math.floor(now / windowMs) + 1) * windowMs - now;
    return v;
  }

  /** Once a minute: windows nobody counted in for a day go (a key comes back on its next message). */
  private sweep(now: number): void {
    this.sweepAt = now + 60_000;
    if (this.windows.size < 10_000) return;
    for (const [k, w] of this.windows) if (w.touched < now - 86_400_000) this.windows.delete(k);
  }
}
