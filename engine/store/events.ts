import type { Db } from './db.js';

/** One journaled event: its position and the event as published on the bus. */
export interface JournaledEvent {
  readonly id: number;
  readonly createdAt: number;
  readonly event: Record<string, unknown> & { readonly type: string };
}

interface EventRow { id: number; type: string; payload: string; created_at: number }

/**
 * The `events` table: the event hub's journal. Ids grow; on PostgreSQL two nodes writing at once may commit
 * out of id order, so a reader takes the contiguous run after its position and steps over a hole only once
 * the event after it is older than `holeGraceMs` (a rolled-back insert leaves a hole for ever).
 */
export class EventTable {
  constructor(private readonly db: Db) {}

  async append(event: Record<string, unknown> & { readonly type: string }, now = Date.now()): Promise<number> {
    const r = await this.db.get<{ id: number }>('INSERT INTO events (type, payload, created_at) VALUES (?, ?, ?) RETURNING id', [event.type, JSON.stringify(event), now]);
    return Number(r!.id);
  }

  /** Events after `after`, up to `limit`, stopping at a recent hole. */
  async after(after: number, limit = 500, now = Date.now(), holeGraceMs = 2000): Promise<JournaledEvent[]> {
    const rows = await this.db.all<EventRow>('SELECT id, type, payload, created_at FROM events WHERE id > ? ORDER BY id LIMIT ?', [after, limit]);
    const out: JournaledEvent[] = [];
    let expected = after + 1;
    for (const r of rows) {
      const id = Number(r.id);
      if (id !== expected && now - Number(r.created_at) < holeGraceMs) break;
      out.push({ id, createdAt: Number(r.created_at), event: JSON.parse(r.payload) as JournaledEvent['event'] });
      expected = id + 1;
    }
    return out;
  }

  /** The newest id (0 when empty). */
  async last(): Promise<number> {
    const r = await this.db.get<{ id: number | null }>('SELECT MAX(id) AS id FROM events');
    return Number(r?.id ?? 0);
  }

  /** The oldest id still kept (0 when empty). */
  async first(): Promise<number> {
    const r = await this.db.get<{ id: number | null }>('SELECT MIN(id) AS id FROM events');
    return Number(r?.id ?? 0);
  }

  /** Forgets events older than `before` (ms since the epoch), always keeping the newest one. */
  async prune(before: number): Promise<number> {
    const last = await this.last();
    return (await this.db.run('DELETE FROM events WHERE created_at < ? AND id < ?', [before, last])).changes;
  }
}
