import { startControlPlane } from '../../controlplane/start.js';
import { ApiRegistry } from '../../registry/api-registry.js';
import type { NodeState } from './node-state.js';

/** The APIs (the files and the store's) for a gateway or a control plane, and the control plane's admin API. */
export async function startApisAndControlPlane(n: NodeState): Promise<void> {
  const r = n.roles;
  if (r.gateway || r.controlPlane) {
    const a = new ApiRegistry({ dir: n.config.home.apisDir, store: n.store, bus: n.bus, log: n.log });
    n.apis = a;
    n.stops.push(() => a.stop());
  }
  if (!r.controlPlane) return;
  await n.apis!.start();
  const cp = await startControlPlane({ config: n.config, log: n.log, bus: n.bus, store: n.store!, servlet: n.servlet, users: n.users!, apis: n.apis!, keyManager: n.km });
  n.cp = cp;
  n.stops.push(() => cp.stop());
  n.telemetry.metrics.gauge('sluice_gateways', 'Gateways registered with this control plane, by status', async () => {
    const list = await cp.gateways.list();
    return ['ACTIVE', 'EXPIRED'].map((status) => ({ labels: { status }, value: list.filter((g) => g.status === status).length }));
  });
}
