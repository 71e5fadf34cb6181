import type { Logger } from 'pino';
import type { EventHubView, EventRedisView } from '../../conf/views/control-plane.js';
import type { EventBus, SluiceEvent } from '../events/event-bus.js';
import { HttpError, json, type ServletServer } from '../servlet/index.js';
import type { ApimStore } from '../store/index.js';
import type { UserDirectory } from '../keymanager/users.js';
import { requireAdmin, requireHttps } from './auth.js';
import { INTERNAL_BASE, type EventsPage } from './protocol.js';
import { RedisEventPublisher } from './redis-events.js';

const CROSS_PROCESS_POLL_MS = 300;
const MAX_WAIT_S = 60;

/**
 * The event hub of a node that owns the apim_db store (control plane, key manager, default): every event
 * published on the node's bus (registry changes, token revocations) is appended to the store's journal,
 * announced on Redis when configured, and served to gateway-worker nodes by GET
 * /internal/data/v1/events (a long poll: the answer comes as soon as there is something after the
 * caller's revision, or after `wait` seconds with nothing). Nodes sharing a PostgreSQL database share the
 * journal: a waiting request also looks at the table a few times a second, so events written by another
 * process (a separate key manager revoking tokens) reach the followers too.
 */
export class EventHub {
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: (() => void)[] = [];
  private redis: RedisEventPublisher | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Events appended by this node (metrics). */
  appended = 0;

  constructor(
    private readonly store: ApimStore,
    private readonly bus: EventBus,
    private readonly view: EventHubView,
    private readonly log: Logger,
  ) {}

  async start(redisView: EventRedisView): Promise<void> {
    if (redisView.enabled) this.redis = await RedisEventPublisher.open(redisView, this.log);
    const journal = async (e: SluiceEvent): Promise<void> => {
      if (this.closed) return;
      try {
        const id = await this.store.events.append(e as unknown as Record<string, unknown> & { type: string });
        this.appended++;
        this.redis?.publish(id);
        this.wake();
      } catch (err) {
        this.log.error({ err: (err as Error).message, type: e.type }, 'event not journaled: gateway-worker nodes will see it at their next full resynchronisation');
      }
    };
    this.unsubscribe.push(this.bus.subscribe('registry.changed', journal), this.bus.subscribe('token.revoked', journal));
    const prune = (): void => {
      this.store.events.prune(Date.now() - this.view.retention)
        .then((n) => { if (n) this.log.debug({ removed: n }, 'old events pruned'); })
        .catch((err: Error) => this.log.warn({ err: err.message }, 'pruning old events failed'));
    };
    this.pruneTimer = setInterval(prune, Math.min(300_000, Math.max(1000, this.view.retention / 4)));
    this.pruneTimer.unref();
    prune();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves when this node journals an event, the journal grows past `after`, `ms` pass, or the hub closes. */
  private waitForNew(after: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let poll: NodeJS.Timeout | null = null;
      const done = (): void => {
        this.waiters.delete(done);
        clearTimeout(timer);
        if (poll) clearTimeout(poll);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      const look = (): void => {
        poll = setTimeout(() => {
          this.store.events.last().then((last) => { if (last > after) done(); else if (this.waiters.has(done)) look(); }, () => { if (this.waiters.has(done)) look(); });
        }, CROSS_PROCESS_POLL_MS);
      };
      look();
    });
  }

  /** The events after a revision, waiting up to `waitMs` for some. */
  async page(after: number, waitMs: number): Promise<EventsPage> {
    const [first, last] = await Promise.all([this.store.events.first(), this.store.events.last()]);
    if (after > last || (after > 0 && first > 0 && after < first - 1)) return { revision: last, events: [], resync: true };
    let list = await this.store.events.after(after);
    if (list.length === 0 && waitMs > 0 && !this.closed) {
      await this.waitForNew(after, waitMs);
      list = await this.store.events.after(after);
    }
    return {
      revision: list.length ? list[list.length - 1]!.id : after,
      events: list.map((e) => ({ id: e.id, event: e.event })),
      resync: false,
    };
  }

  /** GET /internal/data/v1/events?after=N&wait=S */
  mount(servlet: ServletServer, users: UserDirectory): void {
    servlet.route('GET', `${INTERNAL_BASE}/events`, async (req) => {
      requireHttps(req);
      await requireAdmin(req, users, 'Sluice event hub');
      const after = Number(req.query.get('after') ?? '0');
      if (!Number.isInteger(after) || after < 0) throw new HttpError(400, 'after must be a revision (a whole number)');
      const waitS = req.query.has('wait') ? Number(req.query.get('wait')) : this.view.longPollTimeout / 1000;
      if (!Number.isFinite(waitS) || waitS < 0) throw new HttpError(400, 'wait must be a number of seconds');
      return json(200, await this.page(after, Math.min(waitS, MAX_WAIT_S) * 1000), { 'cache-control': 'no-store' });
    });
  }

  /** Answers every waiting request now (stop: the servlet does not wait for long polls). */
  async close(): Promise<void> {
    this.closed = true;
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.wake();
    await this.redis?.close();
  }

  get waiting(): number {
    return this.waiters.size;
  }
}
