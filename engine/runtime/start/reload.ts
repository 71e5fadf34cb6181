import type { Config } from '../../../conf/config.js';
import { ConfigError, formatIssue } from '../../../conf/errors.js';
import { loadConfig } from '../../../conf/loader.js';
import { gatewayNotificationView, logView } from '../../../conf/typed-config.js';
import { LOG_LEVEL_STATE_KEY, TELEMETRY_STATE_KEY } from '../../gateway/telemetry/types.js';
import { setLogLevel } from '../../log/logger.js';
import { LIVE_SECTIONS, changedKeys, classify, type ReloadReport } from '../../operations/reload.js';
import type { NodeState } from './node-state.js';

/**
 * What SIGHUP does: re-reads deployment.toml and applies what may change live (log level, telemetry, the
 * extensions' sections); a file that does not load changes nothing. Reloads never overlap: one asked while
 * another runs gets its report.
 */
export function reloader(n: NodeState): () => Promise<ReloadReport> {
  let reloading: Promise<ReloadReport> | null = null;
  return () => {
    reloading ??= reload(n).finally(() => { reloading = null; });
    return reloading;
  };
}

async function reload(n: NodeState): Promise<ReloadReport> {
  const { log } = n;
  let next: Config;
  try {
    next = loadConfig(n.config.home.root);
  } catch (err) {
    const why = err instanceof ConfigError ? err.issues.map(formatIssue).join('; ') : (err as Error).message;
    log.error({ file: n.config.file }, `reload refused: the configuration is not valid; the running one stays (${why})`);
    return { error: why, applied: [], restartRequired: [] };
  }
  const sections = [...LIVE_SECTIONS, ...n.extensions.flatMap((e) => e.liveSections ?? [])];
  const report = classify(changedKeys(n.config, next), sections);
  n.config = next;
  setLogLevel(log, logView(next).level);
  const settings = n.telemetry.configure(next);
  n.telemetry.reopen();
  if (n.gateway) {
    await n.gateway.threads.pushState(TELEMETRY_STATE_KEY, settings);
    await n.gateway.threads.pushState(LOG_LEVEL_STATE_KEY, logView(next).level);
  }
  n.cp?.reconfigure(next);
  n.notifier?.reconfigure(gatewayNotificationView(next));
  for (const e of n.extensions) {
    try { await e.reload?.(next); } catch (err) { log.error({ extension: e.name, err: (err as Error).message }, 'an extension failed to apply the reloaded configuration'); }
  }
  log.info({ applied: report.applied, restartRequired: report.restartRequired }, 'configuration reloaded');
  if (report.restartRequired.length) log.warn({ keys: report.restartRequired }, 'these changed keys take effect at the next restart');
  return report;
}
