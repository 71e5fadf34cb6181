import type { Config } from '../../conf/config.js';
import { formatIssue } from '../../conf/errors.js';
import { roles, ports, logView } from '../../conf/typed-config.js';
import { createLogger } from '../log/logger.js';
import { LocalEventBus } from '../events/event-bus.js';
import { startKeyManager, type RunningKeyManager } from '../keymanager/start.js';

export interface NodeOptions {
  readonly sampleBackend: boolean;
}

export interface RunningNode {
  /** Resolves with the exit code once the node has stopped. */
  readonly closed: Promise<number>;
  stop(): Promise<void>;
}

/** One Sluice process: the roles server.server_role selects, until SIGINT or SIGTERM. */
export async function startNode(config: Config, _opts: NodeOptions): Promise<RunningNode> {
  const log = createLogger({ ...logView(config), thread: 'main' });
  for (const w of config.warnings) log.warn(formatIssue(w));
  const r = roles(config);
  const p = ports(config);
  log.info({ role: r.role, home: config.home.root }, 'starting');
  if (r.gateway) log.info({ http: p.passthruHttp, https: p.passthruHttps }, 'gateway would listen');
  const bus = new LocalEventBus();
  let km: RunningKeyManager | undefined;
  if (r.keyManager) {
    try {
      km = await startKeyManager(config, log, bus);
    } catch (err) {
      log.fatal({ err: (err as Error).message }, 'the key manager did not start');
      log.flush();
      return { closed: Promise.resolve(1), stop: async () => {} };
    }
  }
  else if (r.controlPlane) log.info({ https: p.servletHttps, http: p.servletHttp }, 'servlet transport would listen');
  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((res) => { resolveClosed = res; });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => stopping ??= (async () => {
    await km?.stop();
    log.info('stopped');
    log.flush();
    resolveClosed(0);
  })();
  const onSignal = (sig: string) => { log.info({ signal: sig }, 'stopping'); void stop(); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const keepAlive = setInterval(() => {}, 1 << 30);
  void closed.then(() => clearInterval(keepAlive));
  return { closed, stop };
}
