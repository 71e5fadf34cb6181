import type { Logger } from 'pino';
import type { Redis as RedisClient } from 'ioredis';
import type { EventRedisView } from '../../conf/views/control-plane.js';

/**
 * Redis pub/sub for control plane events ([apim.redis_config] enable): the control plane publishes the id
 * of each journaled event on `<key_prefix>events`; gateway-worker nodes subscribed there fetch the events
 * at once instead of waiting on a long poll. Pub/sub may lose a message: followers also poll
 * ([sluice.event_hub] poll_interval), and the journal stays the source of truth. ioredis is loaded only
 * when Redis is configured.
 */
async function connect(view: EventRedisView, log: Logger, what: string): Promise<RedisClient> {
  const { Redis } = await import('ioredis');
  const client = new Redis(view.url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, retryStrategy: (n) => Math.min(n * 200, 5000) });
  let lastError = '';
  client.on('error', (err: Error) => {
    if (err.message !== lastError) log.warn({ err: err.message }, `Redis (${what}) unavailable; retrying`);
    lastError = err.message;
  });
  client.on('ready', () => { if (lastError) log.info(`Redis (${what}) connected again`); lastError = ''; });
  try {
    await client.connect();
  } catch (err) {
    log.warn({ err: (err as Error).message }, `Redis (${what}) not reachable at start; retrying in the background`);
  }
  return client;
}

export class RedisEventPublisher {
  private constructor(private readonly client: RedisClient, private readonly channel: string, private readonly log: Logger) {}

  static async open(view: EventRedisView, log: Logger): Promise<RedisEventPublisher> {
    return new RedisEventPublisher(await connect(view, log, 'event publisher'), view.channel, log);
  }

  publish(id: number): void {
    this.client.publish(this.channel, String(id)).catch((err: Error) => this.log.debug({ err: err.message }, 'event not published on Redis'));
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

export class RedisEventSubscriber {
  /** Whether announcements can arrive now: connected and subscribed. */
  up = false;
  /** When `up` last changed (epoch ms). */
  since = Date.now();

  private constructor(private readonly client: RedisClient) {}

  /**
   * Calls `onEvent(id)` for every event id the control plane announces, and `onState(up)` when the
   * subscription is established or lost (the follower switches between Redis and long polling on it).
   */
  static async open(view: EventRedisView, log: Logger, onEvent: (id: number) => void, onState: (up: boolean) => void = () => {}): Promise<RedisEventSubscriber> {
    const client = await connect(view, log, 'event subscriber');
    const sub = new RedisEventSubscriber(client);
    const set = (up: boolean): void => {
      if (sub.up === up) return;
      sub.up = up;
      sub.since = Date.now();
      onState(up);
    };
    client.on('message', (_channel: string, message: string) => onEvent(Number(message) || 0));
    // ioredis subscribes again by itself after a reconnection (autoResubscribe) before it is 'ready'.
    client.on('ready', () => set(true));
    client.on('close', () => set(false));
    const subscribed = client.subscribe(view.channel).then(
      () => set(client.status === 'ready'),
      (err: Error) => log.warn({ err: err.message }, 'Redis subscription failed; events are long-polled until it is made'),
    );
    // Connected: the subscription is made before the follower starts. Redis down at start: the command waits
    // in ioredis's offline queue until it connects, so it is not awaited.
    if (client.status === 'ready') await subscribed;
    return sub;
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
