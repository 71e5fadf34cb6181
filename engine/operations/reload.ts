import type { Config } from '../../conf/config.js';

/**
 * What a SIGHUP may change without a restart (docs/operations.md, "Reload"). A changed key whose path
 * starts with one of these is applied live; any other changed key is reported as needing a restart (the
 * running value stays). Gateway extensions add their own sections (GatewayExtension.liveSections).
 */
export const LIVE_SECTIONS: readonly string[] = [
  'sluice.log.level',
  'http_access_log',
  'apim.analytics',
  'apim.open_tracer',
  'sluice.tracing',
  'sluice.metrics',
  'carbon_health_check',
  'health_checker',
  'apim.gateway_notification.heartbeat',
  'apim.gateway_notification.deployment_ack',
  'apim.gateway_notification.cleanup',
  'apim.gateway.environment',
];

export interface ReloadReport {
  /** The file could not be loaded: nothing changed. */
  readonly error?: string;
  /** Changed keys applied live. */
  readonly applied: readonly string[];
  /** Changed keys that take effect at the next restart. */
  readonly restartRequired: readonly string[];
}

function flatten(o: unknown, prefix: string, out: Map<string, string>): void {
  if (o !== null && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, v] of Object.entries(o as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.set(prefix, JSON.stringify(o) ?? 'undefined');
}

/** Key paths whose effective value differs (values are compared, never returned: some are secrets). */
export function changedKeys(before: Config, after: Config): string[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  flatten(before.effective({ maskSecrets: false }), '', a);
  flatten(after.effective({ maskSecrets: false }), '', b);
  const out = new Set<string>();
  for (const [k, v] of a) if (b.get(k) !== v) out.add(k);
  for (const k of b.keys()) if (!a.has(k)) out.add(k);
  return [...out].sort();
}

export function isLive(path: string, sections: readonly string[]): boolean {
  return sections.some((s) => path === s || path.startsWith(`${s}.`));
}

export function classify(paths: readonly string[], sections: readonly string[]): { applied: string[]; restartRequired: string[] } {
  const applied: string[] = [];
  const restartRequired: string[] = [];
  for (const p of paths) (isLive(p, sections) ? applied : restartRequired).push(p);
  return { applied, restartRequired };
}
