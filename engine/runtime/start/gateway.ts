import type { Config } from '../../../conf/config.js';
import { artifactSyncView, gatewayNotificationView, hostname, passthruListeners, senderTls, tokenValidationView } from '../../../conf/typed-config.js';
import { loadTrustedCertificates } from '../../../transport/tls/key-store.js';
import type { EventBus } from '../../events/event-bus.js';
import type { RunningKeyManager } from '../../keymanager/start.js';
import { SecurityExtension, remoteIssuer, remoteJwks, type SecuritySources } from '../../security/security-extension.js';
import type { ApimStore } from '../../store/index.js';
import { GatewayNotifier, HttpGatewayNotifications, gatewayId } from '../../sync/gateway-notifier.js';
import { ThrottlingExtension } from '../../throttling/extension.js';
import { startTrafficManager } from '../../throttling/traffic-manager.js';
import { WebSocketExtension } from '../../websocket/websocket-extension.js';
import { startGateway } from '../gateway-role.js';
import type { NodeState } from './node-state.js';

/**
 * The gateway role: the runtime artifacts first (a gateway-worker pulls them from its control plane), the
 * APIs, the gateway notifications (registration, heartbeat, deployment acks), the extensions that keep the
 * io threads' state current (security, throttling, WebSocket), then the io threads themselves.
 */
export async function startGatewayRole(n: NodeState): Promise<void> {
  const { config, log } = n;
  if (n.sync) {
    n.notReady.splice(0, n.notReady.length, 'pulling the runtime artifacts from the control plane');
    await n.sync.initial();
  }
  if (!n.roles.controlPlane) await n.apis!.start();
  n.notifier = notifier(n);
  // `store` (apim_db, or a gateway-worker's replica kept current by ArtifactSync) and `bus` are ready here.
  n.extensions.push(new SecurityExtension(config, log, n.bus, securitySources(config, n.km, n.store!), n.tls));
  // Throttling: policies (the files, and the store's through the admin API), shared counters, Redis sync.
  const throttling = new ThrottlingExtension(config, log, n.bus);
  n.extensions.push(throttling);
  n.stops.push(await followStorePolicies(n.store!, throttling, n.bus));
  n.extensions.push(new WebSocketExtension(config.home.policiesDir, log));
  const notify = n.notifier;
  const g = await startGateway(config, log, n.tls, n.extensions, {
    apis: n.apis!,
    onTelemetry: (b) => n.telemetry.onBatch(b),
    onApisDeployed: (list) => notify?.deployed(list),
  });
  n.gateway = g;
  n.stops.push(() => g.stop());
  n.telemetry.metrics.counter('sluice_io_thread_restarts_total', 'io threads that died (an uncaught exception, a crash) and were restarted', () => [{ labels: {}, value: g.threads.deaths }]);
  if (notify) {
    notify.start(n.apis!.list());
    n.prestops.push(() => notify.stop());
  }
  if (n.sync) {
    await n.sync.replayRevocations();
    await n.sync.start();
  }
}

/** A traffic manager without a gateway: throttle decisions for the gateways that send it their counts. */
export async function startTrafficManagerRole(n: NodeState): Promise<void> {
  const tm = await startTrafficManager(n.config, n.log, n.bus);
  n.stops.push(() => tm.stop());
}

/** The gateway's notifications to its control plane (in this process, or across the network), when enabled. */
function notifier(n: NodeState): GatewayNotifier | null {
  const nv = gatewayNotificationView(n.config);
  const transport = n.cp ? n.cp.gateways : n.client ? new HttpGatewayNotifications(n.client) : null;
  if (!nv.enabled || !transport) return null;
  const listeners = passthruListeners(n.config);
  return new GatewayNotifier(transport, {
    gatewayId: gatewayId(nv, n.config.home.root),
    labels: artifactSyncView(n.config).labels,
    host: hostname(n.config),
    role: n.roles.role,
    properties: {
      ...(listeners.http.enabled ? { httpPort: listeners.http.port } : {}),
      ...(listeners.https.enabled ? { httpsPort: listeners.https.port } : {}),
      ...(n.servletAddresses.https !== undefined ? { servletHttpsPort: n.servletAddresses.https } : {}),
      pid: process.pid,
      startedAt: new Date().toISOString(),
    },
  }, nv, n.log.child({ component: 'gateway-notification' }));
}

/**
 * Where the gateway's security facts come from: the key manager in this process (its keys directly), else
 * its JWKS URL; applications and revocations from the store (apim_db, or a gateway-worker's replica, whose
 * revocations also arrive as events from the control plane).
 */
function securitySources(config: Config, km: RunningKeyManager | null, store: ApimStore): SecuritySources {
  if (km) {
    return {
      loadApplications: () => km.store.applications.list(),
      loadJwks: async () => km.keys.jwks(),
      loadRevoked: () => km.tokens.revokedTokens(),
      jwksRefreshMs: 0,
    };
  }
  const v = tokenValidationView(config);
  const trust = senderTls(config).trustStore;
  return {
    loadApplications: () => store.applications.list(),
    loadJwks: remoteJwks(v.jwksUrl!, trust ? loadTrustedCertificates(trust) : undefined),
    loadIssuer: remoteIssuer(v.jwksUrl!, trust ? loadTrustedCertificates(trust) : undefined),
    loadRevoked: () => store.tokens.listInvalidUnexpired(Date.now()),
    jwksRefreshMs: v.jwksRefreshMs,
  };
}

/**
 * The admin API's door to the throttling policies: what the store holds is merged after the policy files,
 * now and whenever a `registry.changed` of kind `policies` arrives. The extension announces its own
 * deployments with the same event, so an unchanged store is not applied again.
 */
async function followStorePolicies(store: ApimStore, throttling: ThrottlingExtension, bus: EventBus): Promise<() => void> {
  let last = '';
  const load = async (): Promise<void> => {
    const policies = await store.policies.list();
    const blockConditions = await store.policies.listBlockConditions();
    const key = JSON.stringify([policies, blockConditions]);
    if (key === last) return;
    last = key;
    await throttling.setPolicies('store', policies.length || blockConditions.length ? { policies, blockConditions } : null);
  };
  await load();
  return bus.subscribe('registry.changed', (e) => (e.kind === 'policies' ? load() : undefined));
}
