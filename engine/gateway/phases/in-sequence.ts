import { GatewayError } from '../../../errors/gateway.js';
import { FaultSequence } from '../../../errors/fault-sequences.js';
import type { HeaderRules } from '../../../transport/header-rules.js';
import type { ApiMediation } from '../api-mediation.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';
import { unsafeRequestHeader } from '../safety-faults.js';

/**
 * The API's in_sequence, if it names one: runs on the request before the sender. A content-aware
 * sequence (one that reads or replaces the body) gets the body whole; any other sees headers and
 * properties only and the body keeps streaming. RESPOND answers the client from the sequence; DROP ends
 * the call with 202 and no body.
 */
export class InSequencePhase implements GatewayPhase {
  readonly name = 'in-sequence';

  constructor(private readonly mediation: ApiMediation, private readonly headerRules: HeaderRules) {}

  onRequest(ctx: Call): PhaseResult {
    const name = ctx.api?.def.inSequence;
    if (name === undefined) return PhaseResult.CONTINUE;
    const seq = this.mediation.get(name);
    if (seq === undefined) {
      ctx.raise(GatewayError.SEQUENCE_NOT_DEPLOYED, { description: `The in sequence ${name} of this API is not deployed`, sequence: ctx.api!.def.faultSequence ?? FaultSequence.FAULT });
      return PhaseResult.STOP;
    }
    if (!this.mediation.touchesBody(name)) return this.run(ctx, name, false);
    ctx.whenBodyComplete(() => { if (this.run(ctx, name, true) === PhaseResult.CONTINUE) ctx.proceed(); });
    return PhaseResult.SUSPEND;
  }

  private run(ctx: Call, name: string, withBody: boolean): PhaseResult {
    if (ctx.finished) return PhaseResult.STOP;
    const r = this.mediation.run(this.mediation.get(name)!, 'request', ctx.callFacts(), ctx.reqHeaders, withBody ? ctx.bufferedBody() : null, 200);
    switch (r.kind) {
      case 'error':
        if (r.unsafeHeader) ctx.fault(unsafeRequestHeader(ctx.api!.def.faultSequence ?? FaultSequence.FAULT));
        else ctx.raise(GatewayError.IN_SEQUENCE_FAILED, { description: `The in sequence ${name} failed`, sequence: ctx.api!.def.faultSequence ?? FaultSequence.FAULT });
        return PhaseResult.STOP;
      case 'drop':
        ctx.respond(202, [], null);
        return PhaseResult.STOP;
      case 'respond': {
        // Framing and hop-by-hop fields are the gateway's to write, as for an out sequence's response.
        const rules = this.headerRules;
        ctx.respond(r.status, r.headers.filter(([k]) => !rules.dropsResponseHeader(k.toLowerCase())), r.body);
        return PhaseResult.STOP;
      }
      case 'continue': {
        const h = ctx.reqHeaders;
        h.length = 0;
        for (const [k, v] of r.headers) h.push(k.toLowerCase(), v);
        ctx.headersMediated = true;
        if (withBody && r.body !== null) ctx.replaceBody(r.body);
        return PhaseResult.CONTINUE;
      }
    }
  }
}
