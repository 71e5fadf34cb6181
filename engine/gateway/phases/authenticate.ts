import type { GatewaySecurity } from '../../security/gateway-security.js';
import { BasicAuth } from '../../security/basic-auth.js';
import { SecuritySchemes } from '../../security/security-schemes.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';

/**
 * Authentication: resources with auth type None pass; others need a Bearer access token in the header
 * apim.oauth_config.auth_header. A JWT is checked in the gateway (cache, else a worker thread); an opaque
 * token through the key manager. 900902 missing, 900901 invalid/expired/revoked, 900900 key manager down,
 * all through _auth_failure_handler_ with WWW-Authenticate.
 */
export class AuthenticatePhase implements GatewayPhase {
  readonly name = 'authenticate';

  /** APIs with a `security` list (API keys, Basic auth): engine/security/security-schemes.ts. */
  private readonly schemes: SecuritySchemes;

  constructor(private readonly security: GatewaySecurity) {
    this.schemes = new SecuritySchemes(security, new BasicAuth(security, security.log));
  }

  onRequest(ctx: Call): PhaseResult {
    const resource = ctx.resource;
    if (resource === null || resource.def.authType === 'None') return PhaseResult.CONTINUE;
    const schemes = ctx.api?.def.security;
    if (schemes !== undefined) return this.schemes.authenticate(ctx, schemes);
    return this.security.authenticate(ctx);
  }
}
