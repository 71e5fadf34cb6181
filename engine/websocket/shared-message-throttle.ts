import type { ApiDefinition } from '../registry/types.js';
import type { AuthContext } from '../kernel/call.js';
import type { ThrottlePhase } from '../throttling/throttle-phase.js';
import { errorByCode } from '../../errors/catalogue.js';
import type { MessageThrottle, SessionThrottle, ThrottleVerdict } from './message-throttle.js';

const ALLOWED: ThrottleVerdict = { allowed: true, code: 0, message: '', retryAfterMs: 0 };

/**
 * WebSocket messages counted by the throttling engine (engine/throttling): the same shared counter table
 * as HTTP calls, so a subscription's limit holds across io threads, and across nodes with Redis. Used
 * whenever the gateway runs throttling; LocalMessageThrottle is the fallback without it.
 */
export class SharedMessageThrottle implements MessageThrottle {
  private readonly verdict: ThrottleVerdict = { allowed: false, code: 0, message: '', retryAfterMs: 0 };

  constructor(private readonly phase: ThrottlePhase) {}

  forSession(auth: AuthContext, api: ApiDefinition): SessionThrottle | null {
    if (!this.phase.limitsMessages(auth)) return null;
    const apiId = api.id;
    return { admit: (now) => this.admit(now, auth, apiId) };
  }

  private admit(now: number, auth: AuthContext, apiId: string): ThrottleVerdict {
    const v = this.verdict;
    if (this.phase.countMessage(now, auth, apiId, v)) return ALLOWED;
    v.message = errorByCode(v.code)?.message ?? 'Message throttled out';
    return v;
  }
}
