import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { formatIssue } from '../../conf/errors.js';
import { roles, ports, logView, passthruListeners } from '../../conf/typed-config.js';
import { createLogger } from '../log/logger.js';
import { LocalEventBus } from '../events/event-bus.js';
import { startGateway, listenerTlsMaterial, type RunningGateway } from './gateway-role.js';
import { startKeyManager, type RunningKeyManager } from '../keymanager/start.js';
import { SecurityExtension, remoteJwks, type SecuritySources } from '../security/security-extension.js';
import { WebSocketExtension } from '../websocket/websocket-extension.js';
import { tokenValidationView, senderTls } from '../../conf/typed-config.js';
import { loadTrustedCertificates } from '../../transport/tls/key-store.js';
import { openStore } from '../store/index.js';
import { apimDbView } from '../../conf/typed-config.js';

export interface NodeOptions {
  readonly sampleBackend?: boolean;
  /** Stop on SIGINT/SIGTERM (the CLI); tests stop the node themselves. */
  readonly handleSignals?: boolean;
  /** Log to this logger instead of the configured one (tests). */
  readonly log?: Logger;
}

export interface RunningNode {
  /** Resolves with the exit code once the node has stopped. */
  readonly closed: Promise<number>;
  readonly gateway: RunningGateway | null;
  readonly keyManager: RunningKeyManager | null;
  stop(): Promise<void>;
}

/** One Sluice process: the roles server.server_role selects, until SIGINT or SIGTERM. */
export async function startNode(config: Config, opts: NodeOptions = {}): Promise<RunningNode> {
  const log = opts.log ?? createLogger({ ...logView(config), thread: 'main' });
  for (const w of config.warnings) log.warn(formatIssue(w));
  const r = roles(config);
  const p = ports(config);
  log.info({ role: r.role, home: config.home.root, offset: p.offset }, 'starting');
  const bus = new LocalEventBus();
  const stops: (() => Promise<void>)[] = [];
  let gateway: RunningGateway | null = null;
  let km: RunningKeyManager | null = null;
  try {
    const needsTls = (r.gateway && passthruListeners(config).https.enabled) || r.keyManager || r.controlPlane;
    const tls = needsTls ? listenerTlsMaterial(config, log) : null;
    if (r.keyManager) {
      km = await startKeyManager(config, log, bus, tls ? { tls } : {});
      stops.push(() => km!.stop());
    }
    if (r.gateway) {
      const sources = km ? localSecuritySources(km) : await remoteSecuritySources(config, log, stops);
      const security = new SecurityExtension(config, log, bus, sources, tls);
      const websocket = new WebSocketExtension(config.home.policiesDir, log);
      gateway = await startGateway(config, log, tls, [security, websocket]);
      stops.push(() => gateway!.stop());
    }
  } catch (err) {
    log.fatal((err as Error).message);
    for (const s of stops.reverse()) await s().catch(() => {});
    log.flush();
    throw err;
  }

  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((res) => { resolveClosed = res; });
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    for (const s of stops.reverse()) {
      try { await s(); } catch (err) { log.error({ err: (err as Error).message }, 'error while stopping'); }
    }
    log.info('stopped');
    log.flush();
    resolveClosed(0);
  };
  if (opts.handleSignals !== false) {
    const onSignal = (sig: string): void => { log.info({ signal: sig }, 'stopping: finishing calls in flight'); void stop(); };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const keepAlive = setInterval(() => {}, 1 << 30);
    void closed.then(() => clearInterval(keepAlive));
  }
  return { closed, gateway, keyManager: km, stop };

}

/** The key manager runs in this process: its store and keys directly. */
function localSecuritySources(km: RunningKeyManager): SecuritySources {
  return {
    loadApplications: () => km.store.applications.list(),
    loadJwks: async () => km.keys.jwks(),
    loadRevoked: () => km.tokens.revokedTokens(),
    jwksRefreshMs: 0,
  };
}

/**
 * A gateway without a key manager in its process: signing keys from the key manager's JWKS URL, and
 * applications and revocations from the shared apim_db (PostgreSQL in a multi-node set-up).
 */
async function remoteSecuritySources(config: Config, log: Logger, stops: (() => Promise<void>)[]): Promise<SecuritySources> {
  const v = tokenValidationView(config);
  const trust = senderTls(config).trustStore;
  const store = await openStore(apimDbView(config), log);
  stops.push(async () => { await store.close(); });
  return {
    loadApplications: () => store.applications.list(),
    loadJwks: remoteJwks(v.jwksUrl!, trust ? loadTrustedCertificates(trust) : undefined),
    loadRevoked: () => store.tokens.listInvalidUnexpired(Date.now()),
    jwksRefreshMs: v.jwksRefreshMs,
  };
}
