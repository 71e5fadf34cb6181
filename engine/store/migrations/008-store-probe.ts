import type { Migration } from './types.js';

/**
 * One row that the store's availability probe rewrites while the store is unavailable (a full disk, a lost
 * database): the first probe that commits tells that writes go through again (engine/store/availability.ts).
 */
export const m008StoreProbe: Migration = {
  version: 8,
  name: 'store-probe',
  up: () => [
    `CREATE TABLE store_probe (
      id INTEGER PRIMARY KEY,
      checked_at BIGINT NOT NULL
    )`,
  ],
};
