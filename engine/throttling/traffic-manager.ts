import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { redisView, throttlingView } from '../../conf/typed-config.js';
import type { EventBus, ThrottleDecisionEvent } from '../events/event-bus.js';
import { DeclarativeDirectory } from '../registry/declarative-directory.js';
import { readPolicyFile, type PolicyFile } from './policy-file.js';
import { buildSnapshot, type PolicySnapshot } from './policy-set.js';
import { throttleSettings } from './extension.js';
import { connectRedis, type WatchedRedis } from './redis-client.js';

export interface RunningTrafficManager {
  readonly port: number;
  stop(): Promise<void>;
}

const JANITOR_MS = 5000;

/**
 * The traffic-manager role as its own process (server_role = "traffic-manager"). Gateways decide on their
 * own counters and leases (a call never waits for another process); the traffic manager is the cluster's
 * overseer:
 * - it validates and loads the same policy files (hot-deployed) and reports them;
 * - with Redis, it follows every gateway's throttle decisions on the jms.destination channel, republishes
 *   them on its event bus and keeps the decisions in force until their windows end;
 * - it keeps the registry of live gateway nodes clean (nodes that stopped heartbeating are dropped, so the
 *   others' lease shares grow back);
 * - it serves a status endpoint on [apim.throttling.event_management] hostName and port (offset applied):
 *   GET /throttle/status, GET /throttle/decisions, GET /health.
 */
export async function startTrafficManager(config: Config, log: Logger, bus: EventBus): Promise<RunningTrafficManager> {
  const view = throttlingView(config);
  const rconf = redisView(config);
  const settings = throttleSettings(view);
  let snapshot: PolicySnapshot | null = null;
  let revision = 0;
  const dir = new DeclarativeDirectory<PolicyFile>({
    dir: view.policiesDir, kind: 'policy file', extension: '.toml', parse: readPolicyFile, identity: (f) => f.source, log,
    onChange: (files) => { snapshot = buildSnapshot(files, settings, ++revision, log); },
  });
  dir.start();

  const decisions = new Map<string, ThrottleDecisionEvent>();
  let nodes: { id: string; lastSeen: number }[] = [];
  let redis: WatchedRedis | null = null;
  let sub: WatchedRedis | null = null;
  let janitor: NodeJS.Timeout | null = null;
  const stale = Math.max(3000, 5 * rconf.syncIntervalMs);

  const refreshNodes = async (): Promise<void> => {
    if (!redis?.up) return;
    const key = `${rconf.keyPrefix}nodes`;
    const now = Date.now();
    await redis.client.zremrangebyscore(key, 0, now - stale);
    const flat = await redis.client.zrange(key, 0, -1, 'WITHSCORES');
    const list: { id: string; lastSeen: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) list.push({ id: flat[i]!, lastSeen: Number(flat[i + 1]) });
    nodes = list;
  };

  if (rconf.enabled) {
    redis = await connectRedis(rconf, log, 'the traffic manager', { onUp: () => refreshNodes() });
    sub = await connectRedis(rconf, log.child({ component: 'decisions' }), 'the traffic manager\'s decision feed', {
      onUp: async () => { await sub!.client.subscribe(view.decisionTopic); },
    }, { enableOfflineQueue: true, autoResubscribe: true });
    sub.client.on('message', (channel: string, text: string) => {
      if (channel !== view.decisionTopic) return;
      let e: ThrottleDecisionEvent;
      try {
        e = JSON.parse(text) as ThrottleDecisionEvent;
      } catch {
        log.warn({ channel }, 'a message on the throttle decision channel is not JSON; ignored');
        return;
      }
      if (e.type !== 'throttle.decision' || typeof e.key !== 'string') return;
      decisions.set(`${e.key}\u0000${e.until}`, e);
      void bus.publish(e).catch(() => {});
    });
    janitor = setInterval(() => {
      const now = Date.now();
      for (const [k, e] of decisions) if (e.until <= now) decisions.delete(k);
      void refreshNodes().catch((err: Error) => log.debug({ err: err.message }, 'node registry refresh failed'));
    }, JANITOR_MS);
    janitor.unref();
  } else {
    log.warn('traffic-manager role without [apim.redis_config] enable = true: gateways throttle on their own counters and nothing is shared');
  }

  const policyNames = (): Record<string, string[]> => {
    const out: Record<string, string[]> = { subscription: [], application: [], advanced: [], custom: [] };
    for (const p of snapshot?.policies ?? []) out[p.level]!.push(p.name);
    return out;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://tm');
    const send = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method !== 'GET') { send(405, { error: 'method not allowed' }); return; }
    const now = Date.now();
    switch (url.pathname) {
      case '/health':
        send(200, { status: 'ok' });
        return;
      case '/throttle/status':
        send(200, {
          role: 'traffic-manager',
          topic: view.decisionTopic,
          redis: rconf.enabled ? (redis?.up ? 'up' : 'down') : 'disabled',
          nodes: nodes.filter((n) => now - n.lastSeen < stale),
          policies: policyNames(),
          policyRevision: snapshot?.revision ?? 0,
          blockConditions: snapshot?.blockConditions.length ?? 0,
          decisions: [...decisions.values()].filter((e) => e.until > now).length,
        });
        return;
      case '/throttle/decisions':
        send(200, { decisions: [...decisions.values()].filter((e) => e.until > now) });
        return;
      default:
        send(404, { error: 'not found', paths: ['/throttle/status', '/throttle/decisions', '/health'] });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'EADDRINUSE'
      ? `traffic manager: port ${view.statusPort} on ${view.statusHost} is already in use`
      : `traffic manager: cannot listen on ${view.statusHost}:${view.statusPort}: ${err.message}`)));
    server.listen(view.statusPort, view.statusHost, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ host: view.statusHost, port, redis: rconf.enabled ? redis?.where : 'disabled', topic: view.decisionTopic }, 'traffic manager listening');
  return {
    port,
    async stop(): Promise<void> {
      dir.stop();
      if (janitor) clearInterval(janitor);
      await new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
      await sub?.close();
      await redis?.close();
    },
  };
}
