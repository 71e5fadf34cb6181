import type { Migration } from './types.js';

/**
 * Throttling policies (subscription, application, advanced, custom levels) and block conditions, as the
 * admin REST API and the declarative policy files write them; definitions as JSON (engine/registry/types.ts).
 */
export const m005Throttling: Migration = {
  version: 5,
  name: 'throttling',
  up: () => [
    `CREATE TABLE throttle_policies (
      level TEXT NOT NULL,
      name TEXT NOT NULL,
      definition TEXT NOT NULL,
      source TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (level, name)
    )`,
    `CREATE TABLE block_conditions (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      value TEXT NOT NULL,
      enabled INTEGER NOT NULL,
      invert INTEGER NOT NULL,
      source TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX block_conditions_type ON block_conditions (type, value)`,
  ],
};
