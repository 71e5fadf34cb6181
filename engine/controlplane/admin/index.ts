import type { AdminApiView } from '../../../conf/views/control-plane.js';
import { json, type Reply, type ServletRequest, type ServletServer } from '../../servlet/index.js';
import { IpSet, parseIp } from '../../throttling/ip.js';
import { requireAdmin } from '../auth.js';
import { mountApis } from './apis.js';
import { mountApplications } from './applications.js';
import type { AdminContext } from './context.js';
import { mountGateways } from './gateways.js';
import { AdminError, AdminRoutes, errorReply } from './http.js';
import { OPENAPI } from './openapi.js';
import { mountThrottling } from './throttling.js';
import { mountUsers } from './users.js';
import { mountApiKeys } from './api-keys.js';

export const ADMIN_BASE = '/api/am/admin/v1';

/**
 * The admin REST API (docs/admin-api.md, OpenAPI at /api/am/admin/v1/openapi.json) on the servlet HTTPS
 * port: HTTP Basic as an administrator, JSON in and out, errors as { code, message, description }. It
 * answers only clients in [sluice.admin_api] allowed_networks (loopback by default): others get 403 before
 * their credentials are looked at. The TCP peer counts, never a forwarded header.
 */
export function mountAdminApi(servlet: ServletServer, ctx: AdminContext, view: AdminApiView): void {
  let allowed: IpSet;
  try {
    allowed = IpSet.parse(view.allowedNetworks);
  } catch (err) {
    throw new Error(`[sluice.admin_api] allowed_networks: ${(err as Error).message}`);
  }
  const reachable = (req: ServletRequest): boolean => {
    const ip = parseIp(req.remoteAddress);
    return ip !== null && allowed.contains(ip);
  };
  const routes = new AdminRoutes();
  mountApis(routes, ctx);
  mountApplications(routes, ctx);
  mountThrottling(routes, ctx);
  mountGateways(routes, ctx);
  mountUsers(routes, ctx);
  mountApiKeys(routes, ctx);
  const handle = async (req: ServletRequest): Promise<Reply> => {
    try {
      if (!reachable(req)) {
        ctx.log.debug({ client: req.remoteAddress, path: req.path }, 'admin API call from outside [sluice.admin_api] allowed_networks refused');
        throw new AdminError(403, 'the admin API does not answer this network', 'it answers the networks in [sluice.admin_api] allowed_networks (loopback by default)');
      }
      if (!req.secure) throw new AdminError(403, 'the admin API is served on the HTTPS servlet port only');
      const sub = req.path.slice(ADMIN_BASE.length) || '/';
      if (sub === '/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) return json(200, OPENAPI, { 'cache-control': 'public, max-age=300' });
      const user = await requireAdmin(req, ctx.users, 'Sluice admin API');
      const m = routes.match(req.method, sub);
      if (m === null) throw new AdminError(404, `no resource at ${req.method} ${req.path}`);
      if ('allow' in m) throw new AdminError(405, `${req.method} is not allowed on ${req.path}`, '', { allow: m.allow.join(', ') });
      return await m.handler(req, m.params, user);
    } catch (err) {
      const reply = errorReply(err);
      if (reply) return reply;
      throw err;
    }
  };
  servlet.route('*', `${ADMIN_BASE}/*`, handle);
}
