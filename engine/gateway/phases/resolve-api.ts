import { ApiRouter } from '../../routing/api-router.js';
import { ApiHandlerError } from '../../../errors/api-handler.js';
import { GatewayError } from '../../../errors/gateway.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';
import type { DeployedApis } from '../../routing/deployed-apis.js';

const ALLOW_POST: readonly (readonly [string, string])[] = [['Allow', 'POST']];

/**
 * Finds the API by /<context>/<version> and the resource by verb and uri template. No API: the main
 * sequence's 404. A BLOCKED API: 700700 with 503. No resource: 900906 with 403 through
 * _resource_mismatch_handler_. The gateway's /token and /revoke take POST only (405 through _token_fault_). Also picks the production endpoint, which the key-type check may change.
 */
export class ResolveApiPhase implements GatewayPhase {
  readonly name = 'resolve-api';

  constructor(private readonly deployed: DeployedApis) {}

  onRequest(ctx: Call): PhaseResult {
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
        ctx.raise(GatewayError.TOKEN_API_METHOD, { headers: ALLOW_POST });
        return PhaseResult.STOP;
      }
      ctx.raise(GatewayError.NO_MATCHING_API, { description: `No API is deployed for the path ${ctx.path}` });
      return PhaseResult.STOP;
    }
    const api = match.api;
    if (ctx.minDepth >= 0 && ctx.minDepth < api.prefixDepth) {
      // `/trav/v1/../../trav/v1/admin`: the path left the API's context and came back; the door's
      // normalisation resolved it, but what the client meant is not this API's to judge (docs/security.md).
      ctx.closeConnection = true;
      ctx.raise(GatewayError.PATH_ABOVE_CONTEXT);
      return PhaseResult.STOP;
    }
    ctx.api = api;
    ctx.resourcePath = match.resourcePath;
    if (api.def.lifecycleState === 'BLOCKED') {
      ctx.raise(ApiHandlerError.API_BLOCKED);
      return PhaseResult.STOP;
    }
    if (api.def.lifecycleState === 'RETIRED' || api.def.lifecycleState === 'CREATED') {
      ctx.raise(GatewayError.API_NOT_PUBLISHED, { description: `The API ${api.def.id} is not published` });
      return PhaseResult.STOP;
    }
    // CORS preflight may have no OPTIONS resource of its own; the CORS phase decides for OPTIONS.
    const resource = ApiRouter.findResource(api, ctx.method, match.resourcePath, null);
    if (resource === null) {
      if (ctx.method === 'OPTIONS' && ApiRouter.hasPath(api, match.resourcePath)) return PhaseResult.CONTINUE;
      ctx.raise(ApiHandlerError.NO_MATCHING_RESOURCE, { description: `No matching resource found in the API for the given request (${ctx.method} ${match.resourcePath})` });
      return PhaseResult.STOP;
    }
    ctx.resource = resource;
    const endpoints = deployment.endpointsOf(api);
    ctx.endpoints = endpoints;
    ctx.target = endpoints.production;
    return PhaseResult.CONTINUE;
  }
}
