import type { ApiDefinition } from '../registry/types.js';
import { ApiRouter, type ApiRuntime } from './api-router.js';
import type { BackendTarget, SenderPools } from './backend-target.js';

/**
 * The APIs deployed on one io thread: the router and each API's backend targets, rebuilt on every
 * deployment and swapped as one reference (calls in flight keep the objects they already hold).
 */
export class DeployedApis {
  router = new ApiRouter([]);
  private targets = new Map<ApiRuntime, { production: BackendTarget | null; sandbox: BackendTarget | null }>();

  constructor(private readonly pools: SenderPools) {}

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
