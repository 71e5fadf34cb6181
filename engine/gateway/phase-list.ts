import type { GatewayPhase } from './phase.js';
import type { GatewayThread } from './gateway-thread.js';
import { ResolveApiPhase } from './phases/resolve-api.js';
import { ValidateBodyPhase } from './phases/validate-body.js';
import { CorsPhase } from './phases/cors.js';
import { MutualSslPhase } from './phases/mutual-ssl.js';
import { AuthenticatePhase } from './phases/authenticate.js';
import { AuthorizePhase } from './phases/authorize.js';
import { GraphqlQueryPhase } from './phases/graphql-query.js';
import { BackendJwtPhase } from './phases/backend-jwt.js';
import { InSequencePhase } from './phases/in-sequence.js';
import { ThrottlePhase } from '../throttling/throttle-phase.js';
import { UpgradeRequiredPhase } from '../websocket/upgrade-required-phase.js';

/**
 * The gateway's request phases, in order (DESIGN.md "How a call flows"):
 *   resolve-api -> websocket-upgrade-required -> cors -> mutual-ssl -> authenticate -> authorize -> throttle -> graphql-query
 *   -> backend-jwt -> in-sequence -> validate-body
 * and then the sender. Each phase lives in engine/gateway/phases/ (or its subsystem's folder) and is added
 * here, where the order is visible in one place. Phases that a configuration does not need are left out.
 */
export function buildPhases(thread: GatewayThread): GatewayPhase[] {
  const p = thread.init.passthru;
  const phases: GatewayPhase[] = [
    new ResolveApiPhase(thread.deployed),
    new UpgradeRequiredPhase(),
    new CorsPhase(thread.security, thread.faults),
    new MutualSslPhase(thread.security),
    new AuthenticatePhase(thread.security),
    new AuthorizePhase(thread.security),
  ];
  // throttle: right after authorize (it reads ctx.auth), before backend-jwt; in the list when the node runs
  // the throttling extension (engine/throttling/extension.ts).
  if (ThrottlePhase.enabled(thread.state)) phases.push(new ThrottlePhase(thread.state, thread.log));
  phases.push(new GraphqlQueryPhase(thread.init.graphql), new BackendJwtPhase(thread.security), new InSequencePhase(thread.mediation));
  if (p.forceJsonValidation || p.forceXmlValidation) phases.push(new ValidateBodyPhase(p.forceJsonValidation, p.forceXmlValidation));
  return phases;
}
