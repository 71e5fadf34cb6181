import type { HealthCheckView } from '../../conf/views/operations.js';
import { HttpError, json, type Reply, type ServletServer } from '../servlet/index.js';
import { PostgresDb, type Db } from '../store/index.js';

/** A database the data source checker watches. */
export interface DataSource {
  /** The reference system's JNDI-style name (`jdbc/WSO2AM_DB`). */
  readonly name: string;
  /** Other names `monitored.datasources` may use (`apim_db`, `WSO2AM_DB`). */
  readonly aliases: readonly string[];
  readonly db: Db;
  readonly validationQuery: string;
}

export interface HealthSources {
  /** The [carbon_health_check] keys now (they change on reload). */
  view(): HealthCheckView;
  dataSources(): readonly DataSource[];
  /** Whether this node has a user store (not a gateway-worker). */
  hasUserStore(): boolean;
  /** Reads the user store; throws when it cannot. */
  probeUserStore(): Promise<void>;
  /** Readiness: started and not stopping; a gateway-worker has its first artifacts. */
  readiness(): { readonly ready: boolean; readonly reasons: readonly string[] };
  /** A gateway-worker: how it follows the control plane's events now (null on other nodes). */
  eventSync?(): { readonly mode: string; readonly redis?: string; readonly since?: string } | null;
}

export interface CheckerResult {
  readonly name: string;
  readonly order: number;
  readonly status: 'UP' | 'DOWN';
  readonly details: Readonly<Record<string, unknown>>;
}

interface HealthError { readonly code: string; readonly message: string; readonly description: string }

export const HEALTH_PATHS = {
  health: '/api/health-check/v1.0/health',
  live: '/health/live',
  ready: '/health/ready',
} as const;

const CHECK_TIMEOUT_MS = 5000;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

async function checkDataSources(view: HealthCheckView, sources: readonly DataSource[], health: { key: string; value: string }[], errors: HealthError[]): Promise<CheckerResult> {
  const monitored = view.dataSource.monitored.map((m) => m.toLowerCase());
  const limit = view.dataSource.poolUsageLimitPercentage;
  const details: Record<string, unknown> = {};
  let up = true;
  for (const ds of sources) {
    if (monitored.length && !monitored.includes(ds.name.toLowerCase()) && !ds.aliases.some((a) => monitored.includes(a.toLowerCase()))) continue;
    const d: Record<string, unknown> = { dialect: ds.db.dialect };
    if (ds.db instanceof PostgresDb) {
      const p = ds.db.poolStats();
      const active = p.total - p.idle;
      const usage = Math.round((active / Math.max(1, p.max)) * 1000) / 10;
      Object.assign(d, { activeConnections: active, idleConnections: p.idle, waitingRequests: p.waiting, maxConnections: p.max, poolUsagePercentage: usage });
      health.push({ key: `${ds.name}.active.connection.count`, value: String(active) });
      health.push({ key: `${ds.name}.pool.usage.percentage`, value: String(usage) });
      if (usage > limit) {
        up = false;
        errors.push({ code: 'HC_00004', message: `Pool usage of ${ds.name} is above ${limit}%`, description: `${active} of ${p.max} connections are in use (pool_usage_limit_percentage = ${limit})` });
      }
    }
    const t0 = performance.now();
    try {
      await withTimeout(ds.db.get(ds.validationQuery), CHECK_TIMEOUT_MS, ds.name);
      d['validationMs'] = Math.round((performance.now() - t0) * 10) / 10;
      // A full disk lets reads through: what the store's own writes last saw decides too.
      const problem = ds.db.availability.problem;
      if (problem !== null) throw new Error(`writes fail since ${new Date(ds.db.availability.since).toISOString()}: ${problem.message}`);
      d['status'] = 'UP';
    } catch (err) {
      up = false;
      d['status'] = 'DOWN';
      d['error'] = (err as Error).message;
      errors.push({ code: 'HC_00003', message: `Error while getting a database connection for the data source ${ds.name}`, description: (err as Error).message });
    }
    details[ds.name] = d;
  }
  return { name: 'data_source_health_checker', order: view.dataSource.order, status: up ? 'UP' : 'DOWN', details };
}

async function checkUserStore(view: HealthCheckView, probe: () => Promise<void>, health: { key: string; value: string }[], errors: HealthError[]): Promise<CheckerResult> {
  const monitored = view.userStore.monitored.map((m) => m.toUpperCase());
  if (monitored.length && !monitored.includes('PRIMARY')) {
    return { name: 'super_tenant_health_checker', order: view.userStore.order, status: 'UP', details: { note: 'no monitored user store is known to Sluice (it has PRIMARY only)' } };
  }
  try {
    await withTimeout(probe(), CHECK_TIMEOUT_MS, 'the user store');
    health.push({ key: 'PRIMARY.user.store.status', value: 'UP' });
    return { name: 'super_tenant_health_checker', order: view.userStore.order, status: 'UP', details: { PRIMARY: 'UP' } };
  } catch (err) {
    errors.push({ code: 'HC_00005', message: 'The user store PRIMARY is not available', description: (err as Error).message });
    return { name: 'super_tenant_health_checker', order: view.userStore.order, status: 'DOWN', details: { PRIMARY: 'DOWN', error: (err as Error).message } };
  }
}

/** Runs every enabled checker in order. */
export async function runHealthChecks(src: HealthSources): Promise<{ status: 'UP' | 'DOWN'; health: { key: string; value: string }[]; errors: HealthError[]; checkers: CheckerResult[] }> {
  const view = src.view();
  const health: { key: string; value: string }[] = [];
  const errors: HealthError[] = [];
  const checkers: CheckerResult[] = [];
  const jobs: { order: number; run: () => Promise<CheckerResult> }[] = [];
  if (view.dataSource.enabled) jobs.push({ order: view.dataSource.order, run: () => checkDataSources(view, src.dataSources(), health, errors) });
  if (view.userStore.enabled && src.hasUserStore()) {
    jobs.push({ order: view.userStore.order, run: () => checkUserStore(view, () => src.probeUserStore(), health, errors) });
  }
  for (const c of view.custom) {
    jobs.push({ order: c.order, run: async () => ({ name: c.name || 'custom', order: c.order, status: 'UP', details: { note: 'custom health checkers ([[health_checker]]) name Java classes, which Sluice does not load; not run' } }) });
  }
  const sync = src.eventSync?.() ?? null;
  if (sync !== null) {
    // Redis down is a degraded mode, not a failure: the long poll brings every event, a little later.
    jobs.push({ order: 99, run: async () => ({
      name: 'event_sync_health_checker', order: 99, status: 'UP',
      details: { ...sync, ...(sync.redis === 'DOWN' ? { note: 'the Redis event subscription is down: events are followed by long poll until it is back' } : {}) },
    }) });
  }
  jobs.sort((a, b) => a.order - b.order);
  for (const j of jobs) checkers.push(await j.run());
  return { status: checkers.every((c) => c.status === 'UP') ? 'UP' : 'DOWN', health, errors, checkers };
}

/**
 * Mounts the health endpoints on the servlet ports (both):
 * - GET /api/health-check/v1.0/health (when [carbon_health_check] enable): each checker's result, 200 or
 *   503 when one fails (body: `health` key/value list and, on failure, `errors`, as the reference system);
 * - GET /health/live: 200 while the process serves (for orchestrators' liveness probes);
 * - GET /health/ready: 200 once the node's roles have started (a gateway-worker: with its first
 *   artifacts), 503 before and while stopping.
 */
export function mountHealthRoutes(servlet: ServletServer, src: HealthSources): void {
  servlet.route('GET', HEALTH_PATHS.health, async (): Promise<Reply> => {
    if (!src.view().enabled) throw new HttpError(404, 'the health check API is disabled ([carbon_health_check] enable = false)');
    const r = await runHealthChecks(src);
    const headers = { 'cache-control': 'no-store' };
    if (r.status === 'UP') return json(200, { status: 'UP', health: r.health, checkers: r.checkers }, headers);
    return json(503, { status: 'DOWN', errors: r.errors, health: r.health, checkers: r.checkers }, headers);
  });
  servlet.route('GET', HEALTH_PATHS.live, () => json(200, { status: 'UP' }, { 'cache-control': 'no-store' }));
  servlet.route('GET', HEALTH_PATHS.ready, () => {
    const r = src.readiness();
    return json(r.ready ? 200 : 503, { status: r.ready ? 'UP' : 'DOWN', ...(r.ready ? {} : { reasons: r.reasons }) }, { 'cache-control': 'no-store' });
  });
}
