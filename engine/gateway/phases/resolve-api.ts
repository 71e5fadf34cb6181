import { ApiRouter } from '../api-router.js';
import { SITUATION_FAULTS } from '../../../mediation/api-handler-errors.js';
import type { MessageContext } from '../message-context.js';
import { PhaseResult, type GatewayPhase } from '../phase.js';
import type { DeployedApis } from '../deployed-apis.js';

const ALLOW_POST: readonly (readonly [string, string])[] = [['Allow', 'POST']];

/**
 * Finds the API by /<context>/<version> and the resource by verb and uri template. No API: the main
 * sequence's 404. A BLOCKED API: 700700 with 503. No resource: 900906 with 403 through
 * _resource_mismatch_handler_. The gateway's /token and /revoke take POST only (405 through _token_fault_). Also picks the production endpoint, which the key-type check may change.
 */
export class ResolveApiPhase implements GatewayPhase {
  readonly name = 'resolve-api';

  constructor(private readonly deployed: DeployedApis) {}

  onRequest(ctx: MessageContext): PhaseResult {
    // One deployment for the whole call: the router and the endpoints come from the same snapshot.
    const deployment = this.deployed.current;
    const match = deployment.router.findApi(ctx.path);
    if (match === null) {
      const token = this.deployed.tokenRoute(ctx.path);
      if (token !== null && ctx.method === 'POST') {
        ctx.api = token.api;
        ctx.resource = token.api.root.rest.get('POST') ?? null;
        ctx.resourcePath = token.path;
        ctx.target = token.target;
        return PhaseResult.CONTINUE;
      }
      if (token !== null) {
        // RFC 6749 §3.2: never forward a GET (its query would carry the grant, maybe the secret) to the key manager.
        ctx.fault({ ...SITUATION_FAULTS.TOKEN_API_METHOD, headers: ALLOW_POST });
        return PhaseResult.STOP;
      }
      ctx.fault({ code: 404, status: 404, message: 'Not Found', description: `No API is deployed for the path ${ctx.path}`, sequence: 'main' });
      return PhaseResult.STOP;
    }
    const api = match.api;
    if (ctx.minDepth >= 0 && ctx.minDepth < api.prefixDepth) {
      // `/trav/v1/../../trav/v1/admin`: the path left the API's context and came back; the door's
      // normalisation resolved it, but what the client meant is not this API's to judge (docs/security.md).
      ctx.closeConnection = true;
      ctx.fault({ code: 400, status: 400, message: 'Bad Request', description: "The request path climbs above the API's context with '..'", sequence: 'fault' });
      return PhaseResult.STOP;
    }
    ctx.api = api;
    ctx.resourcePath = match.resourcePath;
    if (api.def.lifecycleState === 'BLOCKED') {
      ctx.fault({ code: 700700, status: 503, message: 'API blocked',
        description: 'This API has been blocked temporarily. Please try again later or contact the system administrators.', sequence: 'fault' });
      return PhaseResult.STOP;
    }
    if (api.def.lifecycleState === 'RETIRED' || api.def.lifecycleState === 'CREATED') {
      ctx.fault({ code: 404, status: 404, message: 'Not Found', description: `The API ${api.def.id} is not published`, sequence: 'main' });
      return PhaseResult.STOP;
    }
    // CORS preflight may have no OPTIONS resource of its own; the CORS phase decides for OPTIONS.
    const resource = ApiRouter.findResource(api, ctx.method, match.resourcePath, null);
    if (resource === null) {
      if (ctx.method === 'OPTIONS' && ApiRouter.hasPath(api, match.resourcePath)) return PhaseResult.CONTINUE;
      ctx.fault({ code: 900906, status: 403, message: 'No matching resource found for given API Request',
        description: `No matching resource found in the API for the given request (${ctx.method} ${match.resourcePath})`, sequence: '_resource_mismatch_handler_' });
      return PhaseResult.STOP;
    }
    ctx.resource = resource;
    const endpoints = deployment.endpointsOf(api);
    ctx.endpoints = endpoints;
    ctx.target = endpoints.production;
    return PhaseResult.CONTINUE;
  }
}
