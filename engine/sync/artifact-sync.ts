import type { Logger } from 'pino';
import type { ArtifactSyncView, EventHubView, EventRedisView } from '../../conf/views/control-plane.js';
import type { EventBus, RegistryChangedEvent, TokenRevokedEvent } from '../events/event-bus.js';
import type { ApimStore } from '../store/index.js';
import { INTERNAL_BASE, type ArtifactKind, type ArtifactSnapshot, type EventsPage } from '../controlplane/protocol.js';
import { RedisEventSubscriber } from '../controlplane/redis-events.js';
import { ControlPlaneError, type ControlPlaneClient } from './control-plane-client.js';
import { applySnapshot, markRevoked } from './replica.js';

export interface ArtifactSyncOptions {
  readonly client: ControlPlaneClient;
  /** Where the events are fetched (event_listening_endpoints that are http(s)); the client's URLs otherwise. */
  readonly eventsClient: ControlPlaneClient;
  readonly replica: ApimStore;
  readonly bus: EventBus;
  readonly hub: EventHubView;
  readonly sync: ArtifactSyncView;
  readonly redis: EventRedisView;
  readonly log: Logger;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

type Kind = RegistryChangedEvent['kind'];

/**
 * How a gateway-worker keeps its replica of the control plane's artifacts (docs/operations.md):
 *
 * 1. At start, one full pull (GET /internal/data/v1/runtime-artifacts) with the retry rules of
 *    [apim.sync_runtime_artifacts.gateway]: after a failure it waits deployment_retry_duration, then that
 *    times retry_progression_factor after each further failure, max_retry_count times. If every try fails,
 *    the gateway starts with the replica of its last run (or the local API files only) and the follower
 *    below keeps trying.
 * 2. Then it follows the event hub (GET /internal/data/v1/events?after=<revision>): a long poll, or, with
 *    [apim.redis_config] enabled and the Redis subscription up, a fetch whenever Redis announces an event
 *    plus a poll every [sluice.event_hub] poll_interval. While the subscription is down it long-polls (a
 *    revocation must not wait for the poll interval), says so in the log and the health check, and goes back
 *    to Redis once it is up again. A `registry.changed` event pulls that kind again; a `token.revoked`
 *    event is kept in the replica. Each applied change is published on this node's bus, as the same event,
 *    for the gateway's subsystems. A follower too far behind (pruned events) pulls everything again.
 */
export class ArtifactSync {
  revision = 0;
  synced = false;
  lastSyncAt = 0;
  /** Revoked tokens of the last full pull, replayed on the bus once the gateway runs. */
  private pendingRevocations: TokenRevokedEvent[] = [];
  private readonly abort = new AbortController();
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private redis: RedisEventSubscriber | null = null;
  /** The Redis subscription was lost (or not up at start): its return is logged. */
  private redisLost = false;
  private stopped = false;
  private announced = 0;

  constructor(private readonly o: ArtifactSyncOptions) {}

  /** The first pull, with the configured retries. True when it succeeded. */
  async initial(): Promise<boolean> {
    const { maxRetryCount, retryDuration, progressionFactor } = this.o.sync;
    let wait = retryDuration;
    for (let attempt = 0; attempt <= maxRetryCount && !this.stopped; attempt++) {
      try {
        await this.fullPull(false);
        this.o.log.info({ revision: this.revision, controlPlane: this.o.client.urls[0] }, 'runtime artifacts pulled from the control plane');
        return true;
      } catch (err) {
        const last = attempt === maxRetryCount;
        this.o.log.warn({ err: (err as Error).message, attempt: attempt + 1, of: maxRetryCount + 1, ...(last ? {} : { retryInMs: Math.round(wait) }) },
          'pulling the runtime artifacts from the control plane failed');
        if (last) break;
        await sleep(wait, this.abort.signal);
        wait *= progressionFactor;
      }
    }
    if (!this.stopped) {
      this.o.log.error({ controlPlane: this.o.client.urls }, 'the control plane could not be reached ([apim.sync_runtime_artifacts.gateway] retries used up): '
        + 'serving the artifacts of the last synchronisation, and trying again in the background');
    }
    return false;
  }

  /** Everything again: replica replaced, every kind announced on the bus. */
  private async fullPull(announce: boolean): Promise<void> {
    const s = await this.o.client.get<ArtifactSnapshot>(`${INTERNAL_BASE}/runtime-artifacts`, 30_000, this.abort.signal);
    if (!s || typeof s.revision !== 'number') throw new ControlPlaneError('the runtime artifacts answer is not a snapshot');
    const kinds = await applySnapshot(this.o.replica, s, this.o.log);
    this.revision = s.revision;
    this.synced = true;
    this.lastSyncAt = Date.now();
    const now = Date.now();
    this.pendingRevocations = (s.revokedTokens ?? []).filter((r) => r.expiresAt > now).map((r) => ({
      type: 'token.revoked', tokenId: r.tokenId, tokenType: r.format, expiresAt: r.expiresAt, consumerKey: r.clientId, revokedAt: now,
    }));
    if (announce) {
      for (const kind of kinds) await this.publishChange(kind);
      await this.replayRevocations();
    }
  }

  /** The revocations of the last full pull, on the bus (the gateway runs now); idempotent for subscribers. */
  async replayRevocations(): Promise<void> {
    const list = this.pendingRevocations;
    this.pendingRevocations = [];
    for (const e of list) await this.publish(e);
  }

  private async publish(e: RegistryChangedEvent | TokenRevokedEvent): Promise<void> {
    try {
      await this.o.bus.publish(e);
    } catch (err) {
      this.o.log.error({ err: (err as Error).message, type: e.type }, 'a subscriber failed on an event from the control plane');
    }
  }

  private publishChange(kind: Kind): Promise<void> {
    return this.publish({ type: 'registry.changed', kind, revision: this.revision });
  }

  /** Starts following the event hub. */
  async start(): Promise<void> {
    if (this.o.redis.enabled) {
      this.redis = await RedisEventSubscriber.open(this.o.redis, this.o.log, (id) => {
        if (id > this.announced) this.announced = id;
        this.wake?.();
      }, (up) => {
        if (this.stopped) return;
        // The first subscription at start is not news; a return after a loss (or a late first one) is.
        if (up && this.redisLost) this.o.log.info('Redis event subscription is up: following the control plane by its announcements again');
        if (!up) this.o.log.warn('Redis event subscription is down: following the control plane by long poll until it is back');
        this.redisLost = !up;
        // A follower waiting for an announcement that cannot come any more goes to the long poll now.
        this.wake?.();
      });
      if (!this.redis.up) {
        this.redisLost = true;
        this.o.log.warn('Redis event subscription is not up yet: following the control plane by long poll until it is');
      }
    }
    this.loop = this.follow();
  }

  /** How events are followed now, for the health check. */
  eventMode(): { readonly mode: 'redis' | 'long-poll'; readonly redis?: 'UP' | 'DOWN'; readonly since?: string } {
    const r = this.redis;
    if (r === null) return { mode: 'long-poll' };
    return { mode: r.up ? 'redis' : 'long-poll', redis: r.up ? 'UP' : 'DOWN', since: new Date(r.since).toISOString() };
  }

  private async follow(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      // Decided on every round: Redis announcements while the subscription is up, the long poll otherwise.
      const viaRedis = this.redis?.up === true;
      try {
        if (!this.synced) {
          await this.fullPull(true);
          this.o.log.info({ revision: this.revision }, 'runtime artifacts pulled from the control plane');
        } else {
          const waitS = viaRedis ? 0 : Math.max(0, Math.round(this.o.hub.longPollTimeout / 1000));
          const t0 = Date.now();
          const page = await this.o.eventsClient.get<EventsPage>(`${INTERNAL_BASE}/events?after=${this.revision}&wait=${waitS}`, (waitS + 15) * 1000, this.abort.signal);
          if (failures > 0) this.o.log.info('the control plane answers again');
          failures = 0;
          if (page.resync) {
            this.o.log.warn({ revision: this.revision, controlPlane: page.revision }, 'too far behind the control plane\'s events: pulling everything again');
            await this.fullPull(true);
          } else if (page.events.length) {
            await this.apply(page);
          } else if (viaRedis) {
            await this.idle(this.o.hub.pollInterval);
          } else if (Date.now() - t0 < 200) {
            await sleep(250, this.abort.signal);
          }
          continue;
        }
        failures = 0;
      } catch (err) {
        if (this.stopped) return;
        failures++;
        const backoff = Math.min(10_000, 500 * 2 ** Math.min(failures, 5));
        if (failures === 1 || failures % 10 === 0) {
          this.o.log.warn({ err: (err as Error).message, retryInMs: backoff, failures }, 'following the control plane failed; the gateway keeps serving what it has');
        }
        await sleep(backoff, this.abort.signal);
      }
    }
  }

  /** Redis mode: waits for an announcement (or the safety poll). */
  private idle(ms: number): Promise<void> {
    if (this.announced > this.revision) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      const onAbort = (): void => done();
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
      this.wake = done;
      function done(): void { clearTimeout(t); resolve(); }
    }).finally(() => { this.wake = null; });
  }

  private async apply(page: EventsPage): Promise<void> {
    if (this.o.hub.waitingTime > 0) await sleep(this.o.hub.waitingTime, this.abort.signal);
    const kinds = new Set<Kind>();
    const revoked: TokenRevokedEvent[] = [];
    for (const { event } of page.events) {
      if (event.type === 'registry.changed') kinds.add((event as unknown as RegistryChangedEvent).kind);
      else if (event.type === 'token.revoked') revoked.push(event as unknown as TokenRevokedEvent);
    }
    if (revoked.length) {
      await markRevoked(this.o.replica, revoked.map((e) => ({ tokenId: e.tokenId, format: e.tokenType, clientId: e.consumerKey, expiresAt: e.expiresAt })));
    }
    const want: ArtifactKind[] = [...kinds].filter((k): k is 'apis' | 'applications' | 'policies' => k === 'apis' || k === 'applications' || k === 'policies');
    if (want.length) {
      const s = await this.o.client.get<ArtifactSnapshot>(`${INTERNAL_BASE}/runtime-artifacts?kinds=${want.join(',')}`, 30_000, this.abort.signal);
      await applySnapshot(this.o.replica, { ...s, revokedTokens: undefined }, this.o.log);
    }
    this.revision = page.revision;
    this.lastSyncAt = Date.now();
    this.o.log.debug({ revision: this.revision, kinds: want, revoked: revoked.length }, 'control plane events applied');
    for (const e of revoked) await this.publish(e);
    for (const k of want) await this.publishChange(k as Kind);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
    await this.loop?.catch(() => {});
    await this.redis?.close();
  }
}
