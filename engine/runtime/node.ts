import type { Config } from '../../conf/config.js';
import type { RunningControlPlane } from '../controlplane/start.js';
import type { EventBus } from '../events/event-bus.js';
import type { RunningKeyManager } from '../keymanager/start.js';
import type { ReloadReport } from '../operations/reload.js';
import type { TelemetryHub } from '../operations/telemetry-hub.js';
import type { ApiRegistry } from '../registry/api-registry.js';
import type { ServletAddresses, ServletServer } from '../servlet/index.js';
import type { ApimStore } from '../store/index.js';
import type { ArtifactSync } from '../sync/artifact-sync.js';
import type { GatewayNotifier } from '../sync/gateway-notifier.js';
import { removeGeneratedFiles } from '../../transport/tls/server-tls.js';
import type { RunningGateway } from './gateway-role.js';
import { startApisAndControlPlane } from './start/apis.js';
import { startGatewayRole, startTrafficManagerRole } from './start/gateway.js';
import { NodeState, type NodeOptions } from './start/node-state.js';
import { reloader } from './start/reload.js';
import { followControlPlane } from './start/replica.js';
import { mountServlet, openServletPorts } from './start/servlet.js';
import { StopSignals } from './start/signals.js';
import { openStoreRoles } from './start/store-roles.js';
import { startSampleBackend, startTelemetry } from './start/telemetry.js';

export type { NodeOptions } from './start/node-state.js';

export interface RunningNode {
  /** Resolves with the exit code once the node has stopped. */
  readonly closed: Promise<number>;
  readonly gateway: RunningGateway | null;
  readonly keyManager: RunningKeyManager | null;
  readonly controlPlane: RunningControlPlane | null;
  /** The servlet server every role mounts on (token, admin API, health, metrics). */
  readonly servlet: ServletServer;
  readonly servletAddresses: ServletAddresses;
  /** The apim_db store, or a gateway-worker's replica of the control plane's artifacts; null without either. */
  readonly store: ApimStore | null;
  readonly bus: EventBus;
  readonly telemetry: TelemetryHub;
  readonly apis: ApiRegistry | null;
  readonly sync: ArtifactSync | null;
  readonly notifier: GatewayNotifier | null;
  /** Re-reads deployment.toml and applies what can change live (what SIGHUP does). */
  reload(): Promise<ReloadReport>;
  stop(): Promise<void>;
}

/**
 * One Sluice process: the roles server.server_role selects (docs/operations.md), until SIGINT or SIGTERM.
 *
 *   every role        the servlet server ([transport.https.properties] 9443, [transport.http.properties] 9763):
 *                     health (/api/health-check/v1.0/health, /health/live, /health/ready), GET /metrics;
 *                     the telemetry hub (access log, analytics, tracing, metrics)
 *   store roles       (key manager, control plane) the apim_db store and the event hub (journal, /internal/data/v1/events)
 *   key manager       token, revoke, introspect, JWKS, client registration
 *   control plane     admin REST API, runtime artifacts, gateway directory
 *   gateway           io threads on the pass-through ports; APIs from the files and the store; on a
 *                     gateway-worker, the store is a replica kept by ArtifactSync from the control plane
 *
 * Each step is a function of start/ that takes the node's state (start/node-state.ts), in this order; a step
 * that fails undoes every step before it.
 */
export async function startNode(config: Config, opts: NodeOptions = {}): Promise<RunningNode> {
  const n = new NodeState(config, opts);
  const signals = new StopSignals(n);
  startTelemetry(n);
  await startSampleBackend(n);
  mountServlet(n);
  try {
    await openStoreRoles(n);
    await followControlPlane(n);
    await startApisAndControlPlane(n);
    await openServletPorts(n);
    if (n.roles.gateway) await startGatewayRole(n);
    else if (n.roles.trafficManager) await startTrafficManagerRole(n);
  } catch (err) {
    n.log.fatal((err as Error).message);
    await n.undo();
    if (!n.servletStarted) removeGeneratedFiles(n.tls);
    n.log.flush();
    signals.release();
    throw err;
  }
  n.stops.push(() => { if (!n.gateway) removeGeneratedFiles(n.tls); });
  n.ready = true;
  n.notReady.length = 0;

  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((res) => { resolveClosed = res; });
  const stop = async (): Promise<void> => {
    if (n.stopping) return;
    n.stopping = true;
    await n.undo();
    n.log.info('stopped');
    n.log.flush();
    signals.release();
    resolveClosed(0);
  };
  const reload = reloader(n);
  if (opts.handleSignals !== false) {
    const onHup = (): void => { n.log.info('SIGHUP: reloading deployment.toml'); void reload(); };
    process.on('SIGHUP', onHup);
    void closed.then(() => process.off('SIGHUP', onHup));
  }
  signals.stopWhenStarted(() => { void stop(); });
  return {
    closed, gateway: n.gateway, keyManager: n.km, controlPlane: n.cp, servlet: n.servlet, servletAddresses: n.servletAddresses, store: n.store,
    bus: n.bus, telemetry: n.telemetry, apis: n.apis, sync: n.sync, notifier: n.notifier, reload, stop,
  };
}
