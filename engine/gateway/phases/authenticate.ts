import type { GatewaySecurity } from '../../security/gateway-security.js';
import type { MessageContext } from '../message-context.js';
import { PhaseResult, type GatewayPhase } from '../phase.js';

/**
 * Authentication: resources with auth type None pass; others need a Bearer access token in the header
 * apim.oauth_config.auth_header. A JWT is checked in the gateway (cache, else a worker thread); an opaque
 * token through the key manager. 900902 missing, 900901 invalid/expired/revoked, 900900 key manager down,
 * all through _auth_failure_handler_ with WWW-Authenticate.
 */
export class AuthenticatePhase implements GatewayPhase {
  readonly name = 'authenticate';

  constructor(private readonly security: GatewaySecurity) {}

  onRequest(ctx: MessageContext): PhaseResult {
    const resource = ctx.resource;
    if (resource === null || resource.def.authType === 'None') return PhaseResult.CONTINUE;
    return this.security.authenticate(ctx);
  }
}
