import type { Migration } from './types.js';

/**
 * The event hub's journal: every registry change and token revocation of the nodes sharing this database,
 * in order, for gateway-worker nodes to follow (GET /internal/data/v1/events).
 */
export const m007Events: Migration = {
  version: 7,
  name: 'events',
  up: (dialect) => [
    dialect === 'postgres'
      ? `CREATE TABLE events (
          id BIGSERIAL PRIMARY KEY,
          type TEXT NOT NULL,
          payload TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )`
      : `CREATE TABLE events (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          type TEXT NOT NULL,
          payload TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )`,
    `CREATE INDEX events_created ON events (created_at)`,
  ],
};
