import { healthCheckView, keyManagerAccessView } from '../../../conf/typed-config.js';
import { mountHealthRoutes } from '../../operations/health.js';
import { HttpError, servletFromConfig } from '../../servlet/index.js';
import { listenerTlsMaterial } from '../gateway-role.js';
import { warnWhenFdsDoNotFit } from '../fd-budget.js';
import type { NodeState } from './node-state.js';

/**
 * The servlet server every role mounts on ([transport.https.properties] 9443, [transport.http.properties]
 * 9763), with what every role serves: GET /metrics and the health routes (liveness, and readiness from the
 * roles' state). Its ports open later (openServletPorts), once every role has mounted its routes.
 */
export function mountServlet(n: NodeState): void {
  const { telemetry, log } = n;
  n.tls = listenerTlsMaterial(n.config, log);
  const servlet = servletFromConfig(n.config, log.child({ component: 'servlet' }), { tls: n.tls }).server;
  n.servlet = servlet;
  servlet.observe((rec) => telemetry.onServletRequest(rec));
  telemetry.metrics.gauge('sluice_servlet_connections', 'Connections open on the servlet ports (at most [transport.http(s).properties] maxConnections each)',
    async () => (await servlet.connections()).map((c) => ({ labels: { port: c.port }, value: c.open })));
  telemetry.metrics.counter('sluice_servlet_connections_dropped_total', 'Connections closed at accept because a servlet port held maxConnections',
    () => [{ labels: {}, value: servlet.droppedConnections }]);
  warnWhenFdsDoNotFit(n.config, log);
  servlet.route('GET', '/metrics', async () => {
    if (!telemetry.metricsEnabled) throw new HttpError(404, 'metrics are disabled ([sluice.metrics] enable = false)');
    await n.gateway?.threads.flushTelemetry(500);
    return { status: 200, headers: { 'content-type': telemetry.metrics.contentType, 'cache-control': 'no-store' }, body: await telemetry.metrics.text() };
  });
  mountHealthRoutes(servlet, {
    view: () => healthCheckView(n.config),
    dataSources: () => n.dataSources,
    hasUserStore: () => n.userStore !== null,
    eventSync: () => n.sync?.eventMode() ?? null,
    async probeUserStore() {
      if (!n.userStore) throw new Error('no user store on this node');
      await n.userStore.users.get(keyManagerAccessView(n.config).superAdmin.username);
    },
    readiness: () => {
      const down = n.gateway?.threads.down ?? [];
      // The apim_db store failing (a full disk, PostgreSQL gone): no token can be issued, no admin change saved.
      const storeProblem = n.userStore?.db.availability.problem ?? null;
      const reasons = n.stopping ? ['stopping'] : [...n.notReady, ...down.map((i) => `io thread ${i} is down (restarting)`)];
      if (!n.stopping && storeProblem !== null) reasons.push(`the apim_db store is unavailable: ${storeProblem.message}`);
      return { ready: n.ready && !n.stopping && down.length === 0 && storeProblem === null, reasons };
    },
  });
}

/** The servlet ports open once every route is mounted. */
export async function openServletPorts(n: NodeState): Promise<void> {
  n.servletAddresses = await n.servlet.start();
  n.servletStarted = true;
  n.stops.push(() => n.servlet.stop());
  n.log.info({ https: n.servletAddresses.https, http: n.servletAddresses.http }, 'servlet listening');
  if (n.km) n.log.info({ https: n.servletAddresses.https, http: n.servletAddresses.http }, 'key manager listening');
}
