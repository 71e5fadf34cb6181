import type { Migration } from './types.js';

/** Applications, their OAuth keys (client id, hashed secret) and their subscriptions to APIs. */
export const m002Applications: Migration = {
  version: 2,
  name: 'applications',
  up: () => [
    `CREATE TABLE applications (
      name TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      throttling_policy TEXT NOT NULL,
      token_type TEXT NOT NULL,
      callback_url TEXT,
      source TEXT NOT NULL,
      attributes TEXT NOT NULL DEFAULT '{}',
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX applications_source ON applications (source)`,
    `CREATE TABLE application_keys (
      client_id TEXT PRIMARY KEY,
      application TEXT NOT NULL REFERENCES applications (name) ON DELETE CASCADE,
      key_type TEXT NOT NULL,
      client_secret_hash TEXT NOT NULL,
      grant_types TEXT NOT NULL,
      scopes TEXT NOT NULL,
      callback_url TEXT,
      created_at BIGINT NOT NULL,
      UNIQUE (application, key_type)
    )`,
    `CREATE TABLE subscriptions (
      application TEXT NOT NULL REFERENCES applications (name) ON DELETE CASCADE,
      api TEXT NOT NULL,
      throttling_policy TEXT NOT NULL,
      state TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (application, api)
    )`,
  ],
};
