import type { ApiDefinition } from '../registry/types.js';
import { ApiRouter, type ApiRuntime } from './api-router.js';
import type { BackendTarget, SenderPools } from './backend-target.js';

/**
 * The key manager's token API as the gateway fronts it ({gateway_https_url}/token, /revoke): a built-in API
 * whose faults go through _token_fault_.
 */
const TOKEN_API_DEF: ApiDefinition = {
  id: '_TokenAPI_:1.0.0',
  name: '_TokenAPI_',
  context: '/token',
  version: '1.0.0',
  type: 'HTTP',
  lifecycleState: 'PUBLISHED',
  throttlingPolicy: 'Unlimited',
  endpoints: {},
  resources: [{ verb: 'POST', uriTemplate: '/*', authType: 'None', throttlingPolicy: 'Unlimited', scopes: [] }],
  faultSequence: '_token_fault_',
  source: 'builtin',
};

export interface TokenApiRoute {
  readonly api: ApiRuntime;
  readonly target: BackendTarget;
  /** The key manager path for the gateway path (`/token` -> `/oauth2/token`). */
  readonly path: string;
}

/** The backend targets of one deployed API. */
export interface ApiEndpoints {
  readonly production: BackendTarget | null;
  readonly sandbox: BackendTarget | null;
}

const NO_ENDPOINTS: ApiEndpoints = Object.freeze({ production: null, sandbox: null });

/**
 * One deployment: the router and each API's backend targets, built together and never changed. A call
 * routed on it keeps its API's endpoints from it (MessageContext.endpoints), so a later deployment cannot
 * take away the endpoint a call was routed to while the call waits (token validation leaves the thread).
 */
export class Deployment {
  readonly router: ApiRouter;
  private readonly endpoints: ReadonlyMap<ApiRuntime, ApiEndpoints>;

  constructor(defs: readonly ApiDefinition[], pools: SenderPools) {
    this.router = new ApiRouter(defs);
    const endpoints = new Map<ApiRuntime, ApiEndpoints>();
    for (const api of this.router.apis) {
      // WS APIs get targets too: the handshake reads the URL, host and TLS from them (its pool stays unused).
      const e = api.def.endpoints;
      endpoints.set(api, {
        production: e.production ? pools.target(e.production) : null,
        sandbox: e.sandbox ? pools.target(e.sandbox) : null,
      });
    }
    this.endpoints = endpoints;
  }

  /** The endpoints of an API of this deployment (none for an API it does not hold). */
  endpointsOf(api: ApiRuntime): ApiEndpoints {
    return this.endpoints.get(api) ?? NO_ENDPOINTS;
  }
}

/**
 * The APIs deployed on one io thread: the current Deployment, replaced as one reference on every deployment.
 * Calls in flight keep the objects of the deployment they were routed on.
 */
export class DeployedApis {
  current: Deployment;
  private readonly tokenApi: ApiRuntime = new ApiRouter([TOKEN_API_DEF]).apis[0]!;
  private readonly tokenTarget: BackendTarget | null;

  /** `keyManagerOrigin`: where /token and /revoke are forwarded (null: not fronted). */
  constructor(private readonly pools: SenderPools, keyManagerOrigin: string | null = null, keyManagerCa?: readonly string[]) {
    this.tokenTarget = keyManagerOrigin ? pools.target(keyManagerOrigin, keyManagerCa) : null;
    this.current = new Deployment([], pools);
  }

  /** `/token` and `/revoke` on the gateway: the key manager's token and revocation endpoints. */
  tokenRoute(path: string): TokenApiRoute | null {
    if (this.tokenTarget === null) return null;
    if (path === '/token' || path === '/revoke') return { api: this.tokenApi, target: this.tokenTarget, path: `/oauth2${path}` };
    return null;
  }

  deploy(defs: readonly ApiDefinition[]): void {
    this.current = new Deployment(defs, this.pools);
  }
}
