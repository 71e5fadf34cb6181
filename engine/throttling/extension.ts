import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { passthruView, redisView, throttlingView, type RedisView, type ThrottlingView } from '../../conf/typed-config.js';
import type { EventBus, ThrottleDecisionEvent } from '../events/event-bus.js';
import { DeclarativeDirectory } from '../registry/declarative-directory.js';
import type { ExtensionThreads, GatewayExtension } from '../kernel/extension.js';
import { CounterTable, W_COUNT, W_SPAN, createSharedCounters, fullWindow, unpack, type SharedCounters } from './counter-table.js';
import { fingerprint } from './hash.js';
import { STATE_COUNTERS, STATE_POLICIES, type CountersState, type IoThrottleMessage } from './messages.js';
import { readPolicyFile, type PolicyFile } from './policy-file.js';
import { buildSnapshot, type PolicySnapshot, type ThrottleSettings } from './policy-set.js';
import { RedisCounters, newSlotMeta, type SlotMeta } from './redis-sync.js';

const SWEEP_MS = 5000;
const RECENT_DECISIONS = 200;

export function throttleSettings(v: ThrottlingView): ThrottleSettings {
  return {
    blockConditions: v.blockConditions,
    headerConditions: v.headerConditions,
    queryConditions: v.queryConditions,
    jwtClaimConditions: v.jwtClaimConditions,
    unlimitedTier: v.unlimitedTier,
    trustedProxies: v.trustedProxies,
    rateLimitHeaders: v.rateLimitHeaders,
    dataPublishing: v.dataPublishing,
  };
}

/**
 * Throttling on the gateway's main thread (a GatewayExtension):
 * - loads the policy files (<home>/repository/deployment/server/policies/*.toml), hot-deployed: a file
 *   that does not parse keeps its previous version; every change is pushed whole to the io threads;
 * - owns the node's shared counter table (counter-table.ts) and its registry of claimed slots, evicting
 *   slots idle for two windows;
 * - with [apim.redis_config] enable, syncs the counters through Redis (redis-sync.ts);
 * - turns the io threads' decisions into `throttle.decision` events on the event bus and the Redis
 *   channel named by jms.destination. In the `default` role this is the node's traffic manager.
 */
export class ThrottlingExtension implements GatewayExtension {
  readonly name = 'throttling';
  private readonly view: ThrottlingView;
  private readonly redisConf: RedisView;
  private readonly settings: ThrottleSettings;
  private readonly counters: SharedCounters;
  readonly table: CounterTable;
  private readonly channelName = `sluice:throttle:${crypto.randomUUID()}`;
  private channel: BroadcastChannel | null = null;
  private readonly dir: DeclarativeDirectory<PolicyFile>;
  private snapshot: PolicySnapshot | null = null;
  private files: readonly PolicyFile[] = [];
  private readonly external = new Map<string, PolicyFile>();
  private revision = 0;
  private threads: ExtensionThreads | null = null;
  /** Claimed slots of the counter table, by slot. */
  readonly slots = new Map<number, SlotMeta>();
  private sweeper: NodeJS.Timeout | null = null;
  private redis: RedisCounters | null = null;
  readonly recent: ThrottleDecisionEvent[] = [];

  constructor(config: Config, private readonly log: Logger, private readonly bus: EventBus) {
    this.view = throttlingView(config);
    this.redisConf = redisView(config);
    this.settings = throttleSettings(this.view);
    this.counters = createSharedCounters(this.view.counterTableSize);
    this.table = new CounterTable(this.counters);
    this.table.setThreads(passthruView(config).ioThreads);
    this.dir = new DeclarativeDirectory<PolicyFile>({
      dir: this.view.policiesDir, kind: 'policy file', extension: '.toml', parse: readPolicyFile, identity: (f) => f.source, log,
      onChange: (files) => { this.files = files; this.deploy(); },
    });
  }

  /**
   * The registry's other door (the admin REST API and its store): a named set of policies and block
   * conditions, merged after the declarative files (a name the files define wins); null removes the set.
   * Every io thread has the result before the returned promise resolves.
   */
  setPolicies(source: string, set: Omit<PolicyFile, 'source'> | null): Promise<void> {
    if (set === null) this.external.delete(source);
    else this.external.set(source, { source, policies: set.policies.map((p) => ({ ...p, source })), blockConditions: set.blockConditions });
    return this.deploy();
  }

  get nodeId(): string {
    return this.redis?.nodeId ?? 'local';
  }

  /** The policies now in force. */
  get policies(): PolicySnapshot {
    return this.snapshot!;
  }

  get redisUp(): boolean {
    return this.redis?.up ?? false;
  }

  initialState(): Record<string, unknown> {
    this.dir.start();
    // Listen before the io threads exist: a BroadcastChannel delivers only to instances already open.
    this.channel = new BroadcastChannel(this.channelName);
    this.channel.onmessage = (e) => this.onIoMessage((e as MessageEvent).data as IoThrottleMessage);
    (this.channel as unknown as { unref?: () => void }).unref?.();
    return this.currentState();
  }

  currentState(): Record<string, unknown> {
    const counters: CountersState = { ...this.counters, channel: this.channelName };
    return { [STATE_POLICIES]: this.snapshot, [STATE_COUNTERS]: counters };
  }

  private deploy(): Promise<void> {
    const snapshot = buildSnapshot([...this.files, ...this.external.values()], this.settings, ++this.revision, this.log);
    this.snapshot = snapshot;
    const count = snapshot.policies.filter((p) => p.source !== '(built-in)').length;
    this.log.info({ revision: snapshot.revision, policies: count, blockConditions: snapshot.blockConditions.length }, 'throttling policies in force');
    void this.bus.publish({ type: 'registry.changed', kind: 'policies', revision: snapshot.revision }).catch(() => {});
    return this.threads !== null ? this.threads.pushState(STATE_POLICIES, snapshot) : Promise.resolve();
  }

  started(threads: ExtensionThreads): void {
    this.threads = threads;
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
    if (this.redisConf.enabled) {
      this.redis = new RedisCounters(this.redisConf, this.table, this.slots, this.log);
      void this.redis.start().catch((err: Error) => this.log.error({ err: err.message }, 'cannot start the Redis client: throttling uses this node\'s counters only'));
    }
  }

  private onIoMessage(m: IoThrottleMessage): void {
    if (m.t === 'hungry') {
      this.table.lowerHungry();
      this.redis?.syncSoon();
      return;
    }
    if (m.t === 'keys') {
      const k = m.keys;
      for (let i = 0; i < k.length; i += 2) {
        const slot = k[i] as number;
        const key = k[i + 1] as string;
        const fp = fingerprint(key);
        const prev = this.slots.get(slot);
        if (prev === undefined || prev.fp !== fp) this.slots.set(slot, newSlotMeta(key, fp));
      }
      return;
    }
    const d = m.d;
    const event: ThrottleDecisionEvent = {
      type: 'throttle.decision', topic: this.view.decisionTopic, node: this.nodeId, decidedAt: Date.now(),
      key: d.key, level: d.level, policy: d.policy, code: d.code, throttled: d.throttled, limit: d.limit, until: d.until,
      ...(d.api !== undefined ? { api: d.api } : {}),
      ...(d.application !== undefined ? { application: d.application } : {}),
      ...(d.user !== undefined ? { user: d.user } : {}),
    };
    this.recent.push(event);
    if (this.recent.length > RECENT_DECISIONS) this.recent.splice(0, this.recent.length - RECENT_DECISIONS);
    if (d.throttled) this.log.info({ scope: d.level, policy: d.policy, code: d.code, api: d.api, application: d.application, limit: d.limit, until: new Date(d.until).toISOString() }, 'throttle decision: limit reached');
    if (!this.settings.dataPublishing) return;
    void this.bus.publish(event).catch((err: Error) => this.log.warn({ err: err.message }, 'a throttle decision subscriber failed'));
    this.redis?.publish(this.view.decisionTopic, JSON.stringify(event));
  }

  /** Evicts the slots whose key has not counted for two whole windows; logs when the table overflowed. */
  sweep(): void {
    const now = Date.now();
    for (const [slot, meta] of this.slots) {
      const span = Number(this.table.word(slot, W_SPAN));
      if (span <= 0) continue;
      const current = Math.floor(now / span);
      if (fullWindow(unpack(this.table.word(slot, W_COUNT)).tag, current) >= current - 1) continue;
      this.table.evict(slot, meta.fp);
      this.slots.delete(slot);
    }
    const full = this.table.takeFullCount();
    if (full > 0) {
      this.log.warn({ slots: this.counters.slots, claimed: this.table.claimedSlots, uncounted: full },
        'throttle counter table full: calls were not counted at some levels (raise apim.throttling.counter_table_size)');
    }
  }

  /** For the traffic manager's status and tests. */
  status(): Record<string, unknown> {
    const s = this.snapshot;
    return {
      node: this.nodeId,
      redis: this.redisConf.enabled ? (this.redisUp ? 'up' : 'down') : 'disabled',
      nodes: this.redis?.liveNodes ?? 1,
      policies: s ? s.policies.length : 0,
      blockConditions: s ? s.blockConditions.length : 0,
      counters: { slots: this.counters.slots, claimed: this.table.claimedSlots, tracked: this.slots.size },
      decisions: this.recent.length,
    };
  }

  async stop(): Promise<void> {
    this.dir.stop();
    if (this.sweeper) clearInterval(this.sweeper);
    this.channel?.close();
    this.channel = null;
    await this.redis?.stop();
  }
}
