import { ApiHandlerError } from '../../../errors/api-handler.js';
import type { GatewaySecurity, SecuritySettings } from '../../security/gateway-security.js';
import type { AuthContext, Call, TokenFacts } from '../../kernel/call.js';
import type { BackendTarget } from '../../routing/backend-target.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';
import { authorizeBasicUser } from '../../security/basic-auth.js';

const OPEN_SUBSCRIPTION = { tier: 'Unlimited', state: 'UNBLOCKED' } as const;

/**
 * The last call a cached token was admitted on: what the decision was made from (the access view by its
 * serial, the security settings, the resource and the endpoints, all swapped whole when they change) and
 * what it gave the call. A call that presents the token on the same resource under the same objects gets the same
 * answer, so it takes the answer without deciding again.
 */
interface Admitted {
  readonly access: number;
  readonly settings: SecuritySettings | null;
  readonly resource: object;
  readonly endpoints: object | null;
  readonly auth: AuthContext;
  /** The sandbox endpoint for a SANDBOX key; null: the production endpoint resolve-api chose stays. */
  readonly sandbox: BackendTarget | null;
}

/**
 * Authorization of an authenticated call: the token type the resource allows (900905), the subscription
 * of the token's application to the API (900908 none, 900907 blocked, 900909 not active), the resource's
 * scopes (900910), and the key type: a PRODUCTION key routes to the production endpoint, a SANDBOX key to
 * the sandbox one; a missing endpoint is 900901 through _production_key_error_ / _sandbox_key_error_.
 */
export class AuthorizePhase implements GatewayPhase {
  readonly name = 'authorize';
  /**
   * Per cached token, the last call it was admitted on (Admitted). Calls with the same token, tier and
   * application tier share one caller: a copy per call (the spread of two dozen fields) showed in the
   * profile, and so did deciding again what the last call decided (stop 38: the application's Map, the
   * subscription's dictionary, the scopes).
   */
  private readonly admitted = new WeakMap<TokenFacts, Admitted>();
  /**
   * The token of the last call and what `admitted` held for it: a client's calls present the same cached
   * token call after call, and the WeakMap's lookup is a builtin call (about 110 instructions, callgrind).
   */
  private lastToken: TokenFacts | null = null;
  private lastAdmitted: Admitted | undefined = undefined;

  constructor(private readonly security: GatewaySecurity) {}

  onRequest(ctx: Call): PhaseResult {
    const token = ctx.token;
    const api = ctx.api;
    const resource = ctx.resource;
    if (token === null || api === null || resource === null) return PhaseResult.CONTINUE;
    // A Basic-auth user has no application (and so no subscription).
    if (token.tokenType === 'BASIC') return authorizeBasicUser(ctx, token, this.security);
    const security = this.security;
    const last = token === this.lastToken ? this.lastAdmitted : this.lastOf(token);
    if (last !== undefined && last.resource === resource && last.access === security.access.serial
      && last.settings === security.settings && last.endpoints === ctx.endpoints) {
      if (last.sandbox !== null) ctx.target = last.sandbox;
      return this.admit(ctx, last.auth);
    }
    const authType = resource.def.authType;
    if ((authType === 'Application' && token.userType !== 'APPLICATION')
      || (authType === 'Application User' && token.userType !== 'APPLICATION_USER')) {
      ctx.raise(ApiHandlerError.INCORRECT_ACCESS_TOKEN_TYPE);
      return PhaseResult.STOP;
    }
    const app = this.security.access.apps.get(token.application);
    let sub = app?.subscriptions[api.def.id];
    if (sub === undefined) {
      // WebSocket APIs may be open to any valid token ([sluice.websocket] require_subscription = false):
      // the application's own tier still applies, the subscription tier is Unlimited.
      if (api.def.type !== 'WS' || this.security.settings?.wsRequireSubscription !== false) {
        ctx.raise(ApiHandlerError.RESOURCE_FORBIDDEN);
        return PhaseResult.STOP;
      }
      sub = OPEN_SUBSCRIPTION;
    }
    if (sub.state === 'BLOCKED' || (sub.state === 'PROD_ONLY_BLOCKED' && token.keyType === 'PRODUCTION')) {
      ctx.raise(ApiHandlerError.API_TEMPORARILY_BLOCKED);
      return PhaseResult.STOP;
    }
    if (sub.state === 'ON_HOLD' || sub.state === 'REJECTED') {
      ctx.raise(ApiHandlerError.SUBSCRIPTION_INACTIVE);
      return PhaseResult.STOP;
    }
    const scopes = resource.def.scopes;
    if (scopes.length > 0 && !scopes.some((s) => token.scopes.includes(s))) {
      ctx.raise(ApiHandlerError.INVALID_SCOPE, { headers: [['WWW-Authenticate', this.security.wwwAuthenticate('insufficient_scope', `the resource needs one of the scopes: ${scopes.join(' ')}`)]] });
      return PhaseResult.STOP;
    }
    // The endpoints of the deployment the call was routed on (set by resolve-api), not the current one.
    const endpoints = ctx.endpoints;
    let sandbox: BackendTarget | null = null;
    if (token.keyType === 'SANDBOX') {
      sandbox = endpoints?.sandbox ?? null;
      if (sandbox === null) {
        ctx.raise(ApiHandlerError.SANDBOX_KEY_ERROR);
        return PhaseResult.STOP;
      }
      ctx.target = sandbox;
    } else if ((endpoints?.production ?? null) === null) {
      ctx.raise(ApiHandlerError.PRODUCTION_KEY_ERROR);
      return PhaseResult.STOP;
    }
    const applicationTier = app?.tier ?? token.applicationTier;
    let auth = last?.auth;
    if (auth === undefined || auth.tier !== sub.tier || auth.applicationTier !== applicationTier) auth = { ...token, tier: sub.tier, applicationTier };
    const admitted: Admitted = { access: security.access.serial, settings: security.settings, resource, endpoints, auth, sandbox };
    this.admitted.set(token, admitted);
    this.lastAdmitted = admitted;
    return this.admit(ctx, auth);
  }

  private lastOf(token: TokenFacts): Admitted | undefined {
    const last = this.admitted.get(token);
    this.lastToken = token;
    this.lastAdmitted = last;
    return last;
  }

  /** The call goes on as `auth`'s; the token stays off the backend request unless the settings keep it. */
  private admit(ctx: Call, auth: AuthContext): PhaseResult {
    ctx.auth = auth;
    const s = this.security.settings;
    if (s !== null && !s.outboundAuthHeader) ctx.removeBackendHeader(s.authHeader);
    return PhaseResult.CONTINUE;
  }
}
