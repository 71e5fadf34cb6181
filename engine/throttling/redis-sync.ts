import os from 'node:os';
import type { Logger } from 'pino';
import type { RedisView } from '../../conf/views/redis.js';
import {
  CounterTable, KIND_BANDWIDTH, KIND_REQUESTS, MODE_CLUSTER, MODE_LOCAL, W_ALLOW, W_COUNT, W_GLOBAL, W_LIMIT, W_SPAN,
  fullWindow, limitOfWord, unpack,
} from './counter-table.js';
import { connectRedis, redisRunId, type WatchedRedis } from './redis-client.js';

/** What the main thread knows of a claimed slot. */
export interface SlotMeta {
  readonly key: string;
  readonly fp: bigint;
  /** Redis: the window `reported` is for. */
  window: number;
  /** Redis: what this node has added to the window's global count (leases and debts). */
  reported: number;
  /** Redis: the local count at the previous sync (the rate of the last interval). */
  lastCount: number;
}

export function newSlotMeta(key: string, fp: bigint): SlotMeta {
  return { key, fp, window: -1, reported: 0, lastCount: 0 };
}

/**
 * One script call settles a batch of counters. For each key (the global count of one throttle key and
 * window): add the node's debt (calls it admitted beyond what it had reported: credit at the start of a
 * window, or counting on its own while Redis was away), then grant a lease of at most `want` calls, never
 * past the limit and at most half of what is left shared by the live nodes (so leases shrink as the limit
 * nears and no node can hoard the end of a window). Returns grant and global count per key.
 */
const LEASE_LUA = `
local nodes = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS do
  local b = 1 + (i - 1) * 4
  local debt = tonumber(ARGV[b + 1])
  local want = tonumber(ARGV[b + 2])
  local limit = tonumber(ARGV[b + 3])
  local ttl = tonumber(ARGV[b + 4])
  local g = tonumber(redis.call('GET', KEYS[i]) or '0') + debt
  local grant = 0
  if want > 0 and g < limit then
    local cap = math.max(1, math.ceil((limit - g) / (2 * nodes)))
    grant = math.min(want, cap, limit - g)
  end
  if debt + grant > 0 then
    redis.call('INCRBY', KEYS[i], debt + grant)
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
  out[2 * i - 1] = grant
  out[2 * i] = g + grant
end
return out
`;

const BATCH = 256;

interface Pending {
  readonly slot: number;
  readonly meta: SlotMeta;
  readonly window: number;
  readonly debt: number;
  readonly want: number;
  readonly limit: number;
  readonly kind: number;
  readonly count: number;
}

type LeaseClient = WatchedRedis['client'] & { sluiceLease(numKeys: number, ...args: (string | number)[]): Promise<number[]> };

/**
 * The gateway's side of the Redis scheme (docs/throttling.md, "Across nodes"). Every sync_interval the main
 * thread reads the shared counter table, reports each active key's new calls to Redis and asks for leases,
 * and writes back what the io threads may admit (ALLOW) and the global count (GLOBAL). Calls never wait:
 * the io threads only read what the last sync wrote. While Redis is away the table is in local mode (the
 * io threads count against the policies' own limits) and nothing is synced; when it returns, the first sync
 * reports what was counted meanwhile (everything, when Redis restarted and lost its counters).
 */
export class RedisCounters {
  readonly nodeId = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private redis: WatchedRedis | null = null;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private runId = '';
  private nodes = 1;
  private lastHeartbeat = 0;
  private stopped = false;
  /** A hungry io thread asked while a round was running. */
  private again = false;
  private lastSyncAt = 0;
  private busySince = 0;

  constructor(
    private readonly view: RedisView,
    private readonly table: CounterTable,
    private readonly slots: ReadonlyMap<number, SlotMeta>,
    private readonly log: Logger,
  ) {}

  get up(): boolean {
    return this.redis?.up ?? false;
  }

  get liveNodes(): number {
    return this.nodes;
  }

  get where(): string {
    return this.redis?.where ?? '';
  }

  async start(): Promise<void> {
    this.redis = await connectRedis(this.view, this.log, 'throttling', {
      onUp: () => this.resync(),
      onDown: () => this.table.setMode(MODE_LOCAL),
    });
    (this.redis.client as LeaseClient).defineCommand('sluiceLease', { lua: LEASE_LUA });
    this.timer = setInterval(() => { void this.sync(); }, Math.max(10, this.view.syncIntervalMs));
    this.timer.unref();
  }

  /** Redis (re)connected: learn whether it kept its counters, announce this node, then go clustered. */
  private async resync(): Promise<void> {
    const client = this.redis!.client;
    try {
      const runId = await redisRunId(client);
      if (this.runId !== '' && runId !== this.runId) {
        // A restarted Redis lost the windows' counts: report everything counted locally again.
        for (const m of this.slots.values()) m.reported = 0;
      }
      this.runId = runId;
      await this.heartbeat(Date.now());
      // Report what was counted meanwhile and take leases before the io threads start using them.
      await this.sync(true);
    } finally {
      this.table.setMode(MODE_CLUSTER);
    }
  }

  private async heartbeat(now: number): Promise<void> {
    const client = this.redis!.client;
    const p = this.view.keyPrefix;
    const stale = Math.max(3000, 5 * this.view.syncIntervalMs);
    const r = await client.multi()
      .zadd(`${p}nodes`, now, this.nodeId)
      .zremrangebyscore(`${p}nodes`, 0, now - stale)
      .zcard(`${p}nodes`)
      .exec();
    const card = Number(r?.[2]?.[1] ?? 1);
    this.nodes = Math.max(1, card);
    this.table.setNodes(this.nodes);
    this.lastHeartbeat = now;
  }

  /** An io thread ran dry: sync now, or right after the round in progress. */
  syncSoon(): void {
    if (this.busy) { this.again = true; return; }
    void this.sync();
  }

  /** One sync round; a round still running (a slow Redis) makes the next one skip. */
  async sync(force = false): Promise<void> {
    if (this.stopped || this.redis === null || (!this.redis.up && !force)) return;
    // A round that has not settled after a few intervals is given up (its late answer still counts).
    if (this.busy && Date.now() - this.busySince < 5 * this.view.syncIntervalMs + 2000) return;
    this.busy = true;
    this.busySince = Date.now();
    try {
      const now = Date.now();
      if (now - this.lastHeartbeat >= 1000) await this.heartbeat(now);
      const batch: Pending[] = [];
      const elapsed = Math.max(1, now - (this.lastSyncAt || now - this.view.syncIntervalMs));
      this.lastSyncAt = now;
      for (const [slot, meta] of this.slots) {
        const p = this.plan(slot, meta, now, elapsed);
        if (p !== null) batch.push(p);
      }
      for (let i = 0; i < batch.length; i += BATCH) await this.settle(batch.slice(i, i + BATCH));
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, 'throttle sync with Redis failed; what was not acknowledged is reported next time');
    } finally {
      this.busy = false;
    }
    if (this.again) {
      this.again = false;
      setImmediate(() => { void this.sync(); });
    }
  }

  private plan(slot: number, meta: SlotMeta, now: number, elapsed: number): Pending | null {
    const t = this.table;
    const span = Number(t.word(slot, W_SPAN));
    if (span <= 0) return null;
    const { limit, kind } = limitOfWord(t.word(slot, W_LIMIT));
    const current = Math.floor(now / span);
    const cw = t.word(slot, W_COUNT);
    const { tag, value: count } = unpack(cw);
    const window = fullWindow(tag, current);
    if (window < current - 1) return null;
    if (meta.window !== window) {
      if (window < meta.window) return null;
      meta.window = window;
      meta.reported = 0;
      meta.lastCount = 0;
    }
    const debt = Math.max(0, count - meta.reported);
    const rate = Math.max(0, count - meta.lastCount);
    meta.lastCount = count;
    let want = 0;
    if (kind === KIND_REQUESTS && window === current) {
      const spare = meta.reported + debt - count;
      // Enough for twice what one sync interval uses at the rate seen since the last sync, so the io
      // threads seldom run dry between syncs (the script caps it near the limit).
      const need = Math.max(1, Math.ceil((2 * rate * this.view.syncIntervalMs) / elapsed));
      if (spare < need) want = 2 * need - spare;
    }
    if (debt === 0 && want === 0 && !(kind === KIND_BANDWIDTH && window === current)) return null;
    return { slot, meta, window, debt, want, limit, kind, count };
  }

  private async settle(batch: readonly Pending[]): Promise<void> {
    const p = this.view.keyPrefix;
    const keys: string[] = [];
    const args: (string | number)[] = [this.nodes];
    for (const b of batch) {
      const span = Number(this.table.word(b.slot, W_SPAN));
      keys.push(`${p}throttle:${span}:${b.window}:${b.meta.key}`);
      args.push(b.debt, b.want, b.limit, span + 10_000);
    }
    const client = this.redis!.client as LeaseClient;
    const out = await client.sluiceLease(keys.length, ...keys, ...args);
    for (let i = 0; i < batch.length; i++) {
      const b = batch[i]!;
      const grant = Number(out[2 * i]);
      const global = Number(out[2 * i + 1]);
      if (b.meta.window !== b.window) continue;
      b.meta.reported += b.debt + grant;
      const allow = b.kind === KIND_BANDWIDTH ? b.count + Math.max(0, b.limit - global) : b.meta.reported;
      this.table.writeTagged(b.slot, W_ALLOW, b.window, allow);
      this.table.writeTagged(b.slot, W_GLOBAL, b.window, global);
    }
  }

  publish(channel: string, message: string): void {
    if (!this.redis?.up) return;
    this.redis.client.publish(channel, message).catch((err: Error) => this.log.debug({ err: err.message }, 'throttle decision not published on Redis'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.table.setMode(MODE_LOCAL);
    const r = this.redis;
    if (r === null) return;
    if (r.up) await r.client.zrem(`${this.view.keyPrefix}nodes`, this.nodeId).catch(() => 0);
    await r.close();
  }
}
