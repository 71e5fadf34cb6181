import { json } from '../../servlet/index.js';
import type { AdminContext } from './context.js';
import { listOf, notFound, type AdminRoutes } from './http.js';

/**
 * Gateway environments ([[apim.gateway.environment]]) and the gateways that registered with this control
 * plane ([apim.gateway_notification]): status ACTIVE or EXPIRED (no heartbeat for cleanup.expiry_time),
 * last heartbeat, and the API revisions each acknowledged.
 */
export function mountGateways(r: AdminRoutes, ctx: AdminContext): void {
  const gatewayJson = (g: Awaited<ReturnType<AdminContext['gateways']['list']>>[number]) => ({
    gatewayId: g.gatewayId,
    status: g.status,
    labels: g.labels,
    host: g.host,
    role: g.role,
    properties: g.properties,
    registeredAt: new Date(g.registeredAt).toISOString(),
    lastHeartbeat: new Date(g.lastHeartbeat).toISOString(),
    deployments: g.deployments.map((d) => ({ apiId: d.apiId, revision: d.revision, action: d.action, deployedAt: new Date(d.deployedAt).toISOString() })),
  });
  r.add('GET', '/environments', async () => {
    const gws = await ctx.gateways.list();
    return json(200, listOf(ctx.environments().map((e) => ({
      name: e.name, type: e.type, description: e.description,
      ...(e.httpEndpoint ? { http_endpoint: e.httpEndpoint } : {}), ...(e.httpsEndpoint ? { https_endpoint: e.httpsEndpoint } : {}),
      gateways: gws.filter((g) => g.labels.some((l) => l.toLowerCase() === e.name.toLowerCase())).length,
    }))));
  });
  r.add('GET', '/environments/{name}/gateways', async (_req, p) => {
    const env = ctx.environments().find((e) => e.name.toLowerCase() === p['name']!.toLowerCase());
    if (!env) throw notFound(`no gateway environment ${p['name']} ([[apim.gateway.environment]])`);
    return json(200, listOf((await ctx.gateways.list(env.name)).map(gatewayJson)));
  });
  r.add('GET', '/gateways', async () => json(200, listOf((await ctx.gateways.list()).map(gatewayJson))));
  r.add('GET', '/gateways/{id}', async (_req, p) => {
    const g = (await ctx.gateways.list()).find((x) => x.gatewayId === p['id']);
    if (!g) throw notFound(`no gateway ${p['id']}`);
    return json(200, gatewayJson(g));
  });
}
