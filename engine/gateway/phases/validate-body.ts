import { GatewayError } from '../../../errors/gateway.js';
import { XMLValidator } from 'fast-xml-parser';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';

function isJson(ct: string): boolean {
  const base = ct.split(';')[0]!.trim().toLowerCase();
  return base === 'application/json' || base.endsWith('+json');
}

function isXml(ct: string): boolean {
  const base = ct.split(';')[0]!.trim().toLowerCase();
  return base === 'application/xml' || base === 'text/xml' || base.endsWith('+xml');
}

/**
 * [passthru_http] force_json_validation / force_xml_validation: a request body of that content type is
 * read whole and parsed before it goes anywhere; a malformed one is refused with 400 and never forwarded.
 * Other messages stay streamed.
 */
export class ValidateBodyPhase implements GatewayPhase {
  readonly name = 'validate-body';

  constructor(private readonly json: boolean, private readonly xml: boolean) {}

  onRequest(ctx: Call): PhaseResult {
    if (!ctx.hasBody) return PhaseResult.CONTINUE;
    const ct = ctx.header('content-type') ?? '';
    const checkJson = this.json && isJson(ct);
    const checkXml = this.xml && isXml(ct);
    if (!checkJson && !checkXml) return PhaseResult.CONTINUE;
    ctx.whenBodyComplete(() => {
      if (ctx.finished) return;
      const text = ctx.bufferedBody().toString('utf8');
      let problem: string | null = null;
      if (checkJson) {
        try { JSON.parse(text); } catch (err) { problem = `Malformed JSON payload: ${(err as Error).message}`; }
      } else {
        const r = XMLValidator.validate(text);
        if (r !== true) problem = `Malformed XML payload: ${r.err.msg} (line ${r.err.line})`;
      }
      if (problem !== null) {
        ctx.raise(GatewayError.BODY_NOT_VALID, { description: problem });
        return;
      }
      ctx.proceed();
    });
    return PhaseResult.SUSPEND;
  }
}
