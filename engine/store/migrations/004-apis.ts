import type { Migration } from './types.js';

/**
 * APIs written through the admin REST API (the declarative files are the other door): the definition as
 * JSON (engine/registry/types.ts ApiDefinition), with the columns the admin API filters on.
 */
export const m004Apis: Migration = {
  version: 4,
  name: 'apis',
  up: () => [
    `CREATE TABLE apis (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      version TEXT NOT NULL,
      context TEXT NOT NULL,
      lifecycle_state TEXT NOT NULL,
      definition TEXT NOT NULL,
      source TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE UNIQUE INDEX apis_context_version ON apis (context, version)`,
  ],
};
