import { ApiHandlerError } from '../../../errors/api-handler.js';
import { renderPreflight } from '../../../mediation/index.js';
import type { CorsView } from '../../../conf/views/security.js';
import type { GatewaySecurity } from '../../security/gateway-security.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';
import type { SequenceFaultRenderer } from '../sequence-faults.js';

/**
 * The CORS policy of a call: the API's own ([cors] in its file) or [apim.cors]. An API with credentials
 * inherits no origins (deployment refuses that since issue 18; a definition stored before gets none).
 */
function policyOf(ctx: Call, global: CorsView): CorsView | null {
  const o = ctx.api?.def.cors;
  if (o) return o.enabled ? { enabled: true, allowOrigins: o.allowOrigins.length || o.allowCredentials ? o.allowOrigins : global.allowOrigins,
    allowMethods: o.allowMethods.length ? o.allowMethods : global.allowMethods, allowHeaders: o.allowHeaders.length ? o.allowHeaders : global.allowHeaders,
    allowCredentials: o.allowCredentials } : null;
  return global.enabled ? global : null;
}

/**
 * The Access-Control-Allow-Origin value for an origin, or null when the origin is not allowed. With
 * credentials only a listed origin is echoed: "*" in the list matches nothing and "null" is never granted
 * (deployment refuses both; this holds for definitions that predate the check).
 */
export function allowedOrigin(policy: CorsView, origin: string): string | null {
  if (policy.allowCredentials) {
    if (origin === '*' || origin.toLowerCase() === 'null') return null;
    return policy.allowOrigins.includes(origin) ? origin : null;
  }
  if (policy.allowOrigins.includes('*')) return '*';
  return policy.allowOrigins.includes(origin) ? origin : null;
}

/**
 * CORS ([apim.cors], per-API override): a preflight (OPTIONS with Origin and Access-Control-Request-Method)
 * is answered here, without authentication, through _cors_request_handler_; other calls from an allowed
 * origin get Access-Control-Allow-Origin (and -Credentials) on the response, faults included. With
 * allow_credentials the request's origin is echoed only when it is listed (never with "*").
 */
export class CorsPhase implements GatewayPhase {
  readonly name = 'cors';

  constructor(private readonly security: GatewaySecurity, private readonly faults: SequenceFaultRenderer) {}

  onRequest(ctx: Call): PhaseResult {
    const settings = this.security.settings;
    const origin = ctx.header('origin');
    const policy = settings === null || origin === undefined || ctx.api === null ? null : policyOf(ctx, settings.cors);
    const preflight = policy !== null && ctx.method === 'OPTIONS' && ctx.header('access-control-request-method') !== undefined;
    const allowed = policy === null ? null : allowedOrigin(policy, origin!);
    if (!preflight) {
      if (allowed !== null) {
        ctx.addResponseHeaders('access-control-allow-origin', allowed);
        if (policy!.allowCredentials) ctx.addResponseHeaders('access-control-allow-credentials', 'true');
        if (allowed !== '*') ctx.addResponseHeaders('vary', 'Origin');
      }
      // resolve-api let an OPTIONS without a resource through for the preflight; it is not one.
      if (ctx.resource === null) {
        ctx.raise(ApiHandlerError.NO_MATCHING_RESOURCE);
        return PhaseResult.STOP;
      }
      return PhaseResult.CONTINUE;
    }
    const headers: [string, string][] = [];
    if (allowed !== null) {
      headers.push(['Access-Control-Allow-Origin', allowed]);
      headers.push(['Access-Control-Allow-Methods', policy!.allowMethods.join(',')]);
      headers.push(['Access-Control-Allow-Headers', policy!.allowHeaders.join(',')]);
      if (policy!.allowCredentials) headers.push(['Access-Control-Allow-Credentials', 'true']);
      if (allowed !== '*') headers.push(['Vary', 'Origin']);
    }
    const r = renderPreflight(this.faults.registry, { method: 'OPTIONS', path: ctx.path, clientIp: ctx.clientIp }, headers, 200);
    ctx.respond(r.status, r.headers, r.body);
    return PhaseResult.STOP;
  }
}
