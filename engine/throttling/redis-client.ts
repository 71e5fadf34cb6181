import type { Logger } from 'pino';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { RedisView } from '../../conf/views/redis.js';

export type { RedisClient };

/**
 * One ioredis connection as throttling uses it: commands fail at once while Redis is away (no offline
 * queue: a caller never waits for a reconnection), reconnection every 0.2 to 2 s, forever. The outage is
 * logged once when it starts and once when it ends; `onUp` runs on every (re)connection, `onDown` once per
 * outage. The password never reaches a log line.
 */
export interface WatchedRedis {
  readonly client: RedisClient;
  readonly where: string;
  get up(): boolean;
  close(): Promise<void>;
}

export function describeRedis(view: RedisView): string {
  if (view.url) {
    try {
      const u = new URL(view.url);
      return `${u.hostname}:${u.port || 6379}`;
    } catch {
      return '(redis url)';
    }
  }
  return `${view.host}:${view.port}`;
}

export async function connectRedis(view: RedisView, log: Logger, what: string, hooks: { onUp?: () => void | Promise<void>; onDown?: () => void } = {},
  extra: Partial<RedisOptions> = {}): Promise<WatchedRedis> {
  const { Redis } = await import('ioredis');
  const options: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(200 * times, 2000),
    // A command unanswered when the connection drops fails (it is reported again by the next sync).
    autoResendUnfulfilledCommands: false,
    ...(view.username ? { username: view.username } : {}),
    ...(view.password ? { password: view.password } : {}),
    ...extra,
  };
  const client = view.url ? new Redis(view.url, options) : new Redis({ ...options, host: view.host, port: view.port });
  const where = describeRedis(view);
  let up = false;
  let everUp = false;
  let downLogged = false;
  let closing = false;
  let generation = 0;
  const down = (): void => {
    if (closing) return;
    generation++;
    const was = up;
    up = false;
    if (!downLogged) {
      downLogged = true;
      if (was || everUp) log.warn({ redis: where }, `Redis is unreachable: ${what} continues with this node's own counters until it returns`);
      else log.warn({ redis: where }, `Redis is not reachable yet: ${what} uses this node's own counters until it is`);
      hooks.onDown?.();
    }
  };
  client.on('ready', () => {
    const gen = generation;
    void (async () => {
      try {
        await hooks.onUp?.();
      } catch (err) {
        log.warn({ redis: where, err: (err as Error).message }, 'Redis resynchronisation failed; retrying on the next sync');
      }
      if (gen !== generation || closing) return;
      up = true;
      if (downLogged) log.info({ redis: where }, `Redis is back: ${what} resynchronised`);
      else log.info({ redis: where }, `Redis connected: ${what} shares counters through it`);
      downLogged = false;
      everUp = true;
    })();
  });
  client.on('error', (err: Error) => { log.debug({ redis: where, err: err.message }, 'Redis connection error'); down(); });
  client.on('close', down);
  client.on('end', down);
  client.connect().catch(() => down());
  return {
    client,
    where,
    get up() { return up; },
    async close() {
      closing = true;
      try { await client.quit(); } catch { client.disconnect(); }
    },
  };
}

/** The run id of the Redis server (changes when it restarts, and with it the loss of unsaved counters). */
export async function redisRunId(client: RedisClient): Promise<string> {
  const info = await client.info('server');
  return /run_id:(\w+)/.exec(info)?.[1] ?? '';
}
