import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { adminApiView, gatewayEnvironments, gatewayNotificationView } from '../../conf/typed-config.js';
import type { EventBus, RegistryChangedEvent } from '../events/event-bus.js';
import type { RunningKeyManager } from '../keymanager/start.js';
import type { UserDirectory } from '../keymanager/users.js';
import type { ApiRegistry } from '../registry/api-registry.js';
import type { ServletServer } from '../servlet/index.js';
import type { ApimStore } from '../store/index.js';
import { mountAdminApi } from './admin/index.js';
import type { AdminContext } from './admin/context.js';
import { mountArtifacts } from './artifacts.js';
import { GatewayDirectory } from './gateway-directory.js';

export interface ControlPlaneOptions {
  readonly config: Config;
  readonly log: Logger;
  readonly bus: EventBus;
  readonly store: ApimStore;
  readonly servlet: ServletServer;
  readonly users: UserDirectory;
  readonly apis: ApiRegistry;
  /** The key manager of this node, when it runs here (default role, resident key manager). */
  readonly keyManager: RunningKeyManager | null;
}

export interface RunningControlPlane {
  readonly gateways: GatewayDirectory;
  readonly admin: AdminContext;
  reconfigure(config: Config): void;
  stop(): Promise<void>;
}

/**
 * The control plane role (api-publisher / api-devportal, and default): the admin REST API, the runtime
 * artifacts gateway-worker nodes pull, and the gateway directory (registration, heartbeats, deployment
 * acknowledgments). The event hub (journal and events endpoint) runs on every node with the store
 * (engine/runtime/node.ts).
 */
export async function startControlPlane(o: ControlPlaneOptions): Promise<RunningControlPlane> {
  const log = o.log.child({ component: 'control-plane' });
  const gateways = new GatewayDirectory(o.store, gatewayNotificationView(o.config), log);
  gateways.start();
  gateways.mount(o.servlet, o.users);
  mountArtifacts(o.servlet, o.users, o.store, o.apis);
  let environments = gatewayEnvironments(o.config);
  let revision = Date.now();
  const km = o.keyManager;
  const admin: AdminContext = {
    store: o.store, bus: o.bus, apis: o.apis, users: o.users, gateways, log: log.child({ component: 'admin-api' }),
    apiKeys: km ? km.apiKeys : null,
    environments: () => environments,
    async revokeClients(clientIds) {
      if (clientIds.length === 0) return 0;
      if (km) return km.tokens.revokeClients(clientIds);
      // No key manager in this process: the shared store says revoked, and the event tells the gateways.
      const now = Date.now();
      const revoked = await o.store.tokens.revokeByClients(clientIds, now);
      for (const r of revoked) {
        if (r.expiresAt <= now) continue;
        await o.bus.publish({ type: 'token.revoked', tokenId: r.tokenId, tokenType: r.format, expiresAt: r.expiresAt, consumerKey: r.clientId, revokedAt: now });
      }
      return revoked.length;
    },
    clientsChanged() { km?.clients.invalidate(); },
    rolesChanged() { km?.roleScopes.invalidate(); },
    async changed(kind: RegistryChangedEvent['kind']) {
      revision = Math.max(revision + 1, Date.now());
      await o.bus.publish({ type: 'registry.changed', kind, revision });
    },
  };
  mountAdminApi(o.servlet, admin, adminApiView(o.config));
  log.info({ environments: environments.map((e) => e.name) }, 'control plane ready: admin API at /api/am/admin/v1, internal endpoints at /internal/data/v1');
  return {
    gateways, admin,
    reconfigure(config) {
      environments = gatewayEnvironments(config);
      gateways.reconfigure(gatewayNotificationView(config));
    },
    async stop() {
      gateways.stop();
    },
  };
}
