import t from 'tap';
import { pino } from 'pino';
import { ApimStore, SqliteDb, migrate } from '../../engine/store/index.js';
import { EventHub } from '../../engine/controlplane/event-hub.js';
import { LocalEventBus } from '../../engine/events/event-bus.js';

async function store(): Promise<ApimStore> {
  const db = new SqliteDb(':memory:');
  await migrate(db);
  return new ApimStore(db);
}

const hubView = { enabled: true, serviceUrl: undefined, username: 'admin', password: 'admin', listeningEndpoints: [], duplicateUrls: [], waitingTime: 0, longPollTimeout: 25000, pollInterval: 30000, retention: 3_600_000 };
const noRedis = { enabled: false, url: '', channel: '' };

t.test('the journal: readers take the contiguous run and step over a hole only once it is old', async (t) => {
  const s = await store();
  t.teardown(() => s.close());
  const now = Date.now();
  for (const id of [1, 2, 4]) await s.db.run('INSERT INTO events (id, type, payload, created_at) VALUES (?, ?, ?, ?)', [id, 'registry.changed', JSON.stringify({ type: 'registry.changed', kind: 'apis', revision: id }), now]);
  t.same((await s.events.after(0, 500, now)).map((e) => e.id), [1, 2], 'a recent hole (3 may still commit) stops the reader');
  t.same((await s.events.after(0, 500, now + 5000)).map((e) => e.id), [1, 2, 4], 'an old hole is stepped over');
  t.equal(await s.events.last(), 4);
  t.equal(await s.events.first(), 1);
  t.equal(await s.events.prune(now + 1), 2, 'pruning keeps the newest event');
  t.equal(await s.events.first(), 4);
});

t.test('the event hub journals the bus, answers long polls at once when something comes, and asks laggards to resync', async (t) => {
  const s = await store();
  const bus = new LocalEventBus();
  const hub = new EventHub(s, bus, hubView, pino({ level: 'silent' }));
  await hub.start(noRedis);
  t.teardown(async () => { await hub.close(); await s.close(); });
  await bus.publish({ type: 'registry.changed', kind: 'apis', revision: 1 });
  await bus.publish({ type: 'token.revoked', tokenId: 'jti-1', tokenType: 'JWT', expiresAt: Date.now() + 60000, consumerKey: 'c1', revokedAt: Date.now() });
  const page = await hub.page(0, 0);
  t.same(page.events.map((e) => e.event['type']), ['registry.changed', 'token.revoked']);
  t.equal(page.revision, 2);
  t.equal(page.resync, false);
  const t0 = Date.now();
  const waiting = hub.page(2, 5000);
  setTimeout(() => { void bus.publish({ type: 'registry.changed', kind: 'policies', revision: 2 }); }, 200);
  const next = await waiting;
  t.ok(Date.now() - t0 < 2000, 'answered as soon as the event was journaled');
  t.same(next.events.map((e) => e.event['kind']), ['policies']);
  t.equal(next.revision, 3);
  const empty = await hub.page(3, 300);
  t.same(empty, { revision: 3, events: [], resync: false }, 'nothing new: the same revision after the wait');
  t.equal((await hub.page(99, 0)).resync, true, 'ahead of the journal (another database): resync');
  await s.db.run('DELETE FROM events WHERE id < 3');
  t.equal((await hub.page(1, 0)).resync, true, 'behind what the journal keeps: resync');
  const closing = hub.page(3, 10000);
  await hub.close();
  t.same((await closing).events, [], 'closing answers the waiting polls');
});
