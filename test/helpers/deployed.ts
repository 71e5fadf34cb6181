// APIs deployed on a DeployedApis of real sender pools (no connection is opened until a call is sent), for
// in-process phase tests.
import { SenderPools } from '../../engine/routing/backend-target.js';
import { DeployedApis } from '../../engine/routing/deployed-apis.js';
import type { ApiDefinition, ResourceDefinition } from '../../engine/registry/types.js';
import { ProxyRules } from '../../transport/sender/proxy-rules.js';

const NO_PROXY = { enabled: false, warnOnHttp500: [], proxy: undefined, proxyProfilesXml: undefined, profiles: [] };

export function deployedApis(defs: readonly ApiDefinition[], keyManagerOrigin: string | null = null): DeployedApis {
  const pools = new SenderPools({
    socketTimeoutMs: 1000, connectTimeoutMs: 1000, maxConnectionsPerHostPort: 4, keepAlive: true, ioBufferSize: 16384, maxHeaderSize: 8192,
    ca: undefined, hostnameVerifier: 'Default', clientKeyPem: undefined, clientCertPem: undefined,
  }, new ProxyRules(NO_PROXY), new ProxyRules(NO_PROXY));
  const d = new DeployedApis(pools, keyManagerOrigin);
  d.deploy(defs);
  return d;
}

export function resource(verb: string, uriTemplate: string, o: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return { verb, uriTemplate, authType: 'None', throttlingPolicy: 'Unlimited', scopes: [], ...o };
}

export function apiDef(o: Partial<ApiDefinition> & Pick<ApiDefinition, 'name' | 'context'>): ApiDefinition {
  const version = o.version ?? '1.0.0';
  return {
    id: `${o.name}:${version}`, version, type: 'HTTP', lifecycleState: 'PUBLISHED', throttlingPolicy: 'Unlimited',
    endpoints: { production: 'http://127.0.0.1:9' }, resources: [resource('GET', '/menu')], source: 'test', ...o,
  };
}
