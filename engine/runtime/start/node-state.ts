import type { Logger } from 'pino';
import type { Config } from '../../../conf/config.js';
import { formatIssue } from '../../../conf/errors.js';
import { logView, ports, roles } from '../../../conf/typed-config.js';
import type { ServerTlsMaterial } from '../../../transport/tls/server-tls.js';
import type { RunningControlPlane } from '../../controlplane/start.js';
import { LocalEventBus } from '../../events/event-bus.js';
import type { GatewayExtension } from '../../kernel/extension.js';
import type { RunningKeyManager } from '../../keymanager/start.js';
import type { UserDirectory } from '../../keymanager/users.js';
import { createLogger } from '../../log/logger.js';
import type { DataSource } from '../../operations/health.js';
import type { TelemetryHub } from '../../operations/telemetry-hub.js';
import type { ApiRegistry } from '../../registry/api-registry.js';
import type { ServletAddresses, ServletServer } from '../../servlet/index.js';
import type { ApimStore } from '../../store/index.js';
import type { ArtifactSync } from '../../sync/artifact-sync.js';
import type { ControlPlaneClient } from '../../sync/control-plane-client.js';
import type { GatewayNotifier } from '../../sync/gateway-notifier.js';
import type { RunningGateway } from '../gateway-role.js';

export interface NodeOptions {
  readonly sampleBackend?: boolean;
  /** Stop on SIGINT/SIGTERM and reload on SIGHUP (the CLI); tests stop and reload the node themselves. */
  readonly handleSignals?: boolean;
  /** Log to this logger instead of the configured one (tests). */
  readonly log?: Logger;
}

type Stop = () => Promise<void> | void;

/**
 * A node while it starts: what each start-up step (start/*.ts) finds or makes and the next ones use, and
 * what undoes it. Each step pushes its own undo on `stops` (run last-first on stop), or on `prestops` for
 * what must go first because the servlet would otherwise wait for it (long polls).
 */
export class NodeState {
  config: Config;
  readonly log: Logger;
  readonly roles: ReturnType<typeof roles>;
  readonly bus = new LocalEventBus();
  readonly stops: Stop[] = [];
  readonly prestops: Stop[] = [];
  /** Gateway subsystems that keep io-thread state current (telemetry, security, throttling, WebSocket). */
  readonly extensions: GatewayExtension[] = [];
  /** The databases the health check probes. */
  readonly dataSources: DataSource[] = [];
  /** Why the node is not ready yet (readiness probe). */
  readonly notReady: string[] = ['starting'];
  telemetry!: TelemetryHub;
  servlet!: ServletServer;
  /** The servlet and pass-through listeners' key store (generated per home on first start). */
  tls!: ServerTlsMaterial;
  servletAddresses: ServletAddresses = {};
  servletStarted = false;
  gateway: RunningGateway | null = null;
  km: RunningKeyManager | null = null;
  cp: RunningControlPlane | null = null;
  /** The apim_db store, or a gateway-worker's replica of the control plane's artifacts. */
  store: ApimStore | null = null;
  /** The store whose users the node authenticates (the apim_db store; a replica has none). */
  userStore: ApimStore | null = null;
  users: UserDirectory | null = null;
  apis: ApiRegistry | null = null;
  sync: ArtifactSync | null = null;
  /** A gateway-worker's client of its control plane. */
  client: ControlPlaneClient | null = null;
  notifier: GatewayNotifier | null = null;
  ready = false;
  stopping = false;

  constructor(config: Config, readonly opts: NodeOptions) {
    this.config = config;
    this.log = opts.log ?? createLogger({ ...logView(config), thread: 'main' });
    for (const w of config.warnings) this.log.warn(formatIssue(w));
    this.roles = roles(config);
    this.log.info({ role: this.roles.role, home: config.home.root, offset: ports(config).offset }, 'starting');
  }

  /** Runs the undo of every step taken so far, last first (prestops before them); errors are logged, never thrown. */
  async undo(): Promise<void> {
    for (const s of [...this.prestops.reverse(), ...this.stops.reverse()]) {
      try { await s(); } catch (err) { this.log.error({ err: (err as Error).message }, 'error while stopping'); }
    }
  }
}
