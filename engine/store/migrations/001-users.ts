import type { Migration } from './types.js';

/** The embedded user store: the super admin from [super_admin] and users for the password grant. */
export const m001Users: Migration = {
  version: 1,
  name: 'users',
  up: () => [
    `CREATE TABLE users (
      username TEXT PRIMARY KEY,
      password_hash TEXT NOT NULL,
      roles TEXT NOT NULL DEFAULT '',
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
  ],
};
