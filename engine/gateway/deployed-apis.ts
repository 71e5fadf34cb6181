import type { ApiDefinition } from '../registry/types.js';
import { ApiRouter, type ApiRuntime } from './api-router.js';
import type { BackendTarget, SenderPools } from './backend-target.js';

/**
 * The APIs deployed on one io thread: the router and each API's backend targets, rebuilt on every
 * deployment and swapped as one reference (calls in flight keep the objects they already hold).
 */
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

export class DeployedApis {
  router = new ApiRouter([]);
  private targets = new Map<ApiRuntime, { production: BackendTarget | null; sandbox: BackendTarget | null }>();
  private readonly tokenApi: ApiRuntime = new ApiRouter([TOKEN_API_DEF]).apis[0]!;
  private readonly tokenTarget: BackendTarget | null;

  /** `keyManagerOrigin`: where /token and /revoke are forwarded (null: not fronted). */
  constructor(private readonly pools: SenderPools, keyManagerOrigin: string | null = null, keyManagerCa?: readonly string[]) {
    this.tokenTarget = keyManagerOrigin ? pools.target(keyManagerOrigin, keyManagerCa) : null;
  }

  /** `/token` and `/revoke` on the gateway: the key manager's token and revocation endpoints. */
  tokenRoute(path: string): TokenApiRoute | null {
    if (this.tokenTarget === null) return null;
    if (path === '/token' || path === '/revoke') return { api: this.tokenApi, target: this.tokenTarget, path: `/oauth2${path}` };
    return null;
  }

  deploy(defs: readonly ApiDefinition[]): void {
    const router = new ApiRouter(defs);
    const targets = new Map<ApiRuntime, { production: BackendTarget | null; sandbox: BackendTarget | null }>();
    for (const api of router.apis) {
      // WS APIs get targets too: the handshake reads the URL, host and TLS from them (its pool stays unused).
      const e = api.def.endpoints;
      targets.set(api, {
        production: e.production ? this.pools.target(e.production) : null,
        sandbox: e.sandbox ? this.pools.target(e.sandbox) : null,
      });
    }
    this.router = router;
    this.targets = targets;
  }

  production(api: ApiRuntime): BackendTarget | null {
    return this.targets.get(api)?.production ?? null;
  }

  sandbox(api: ApiRuntime): BackendTarget | null {
    return this.targets.get(api)?.sandbox ?? null;
  }
}
