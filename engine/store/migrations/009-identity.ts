import type { Migration } from './types.js';

/**
 * Identity breadth (docs/tokens.md): user claims and where a user came from, roles with the scopes bound to
 * them, authorization codes (single use, bound to client, redirect URI and PKCE challenge), API keys (their
 * state, so that a revocation outlives a restart), and two application key columns: the external issuer a
 * key belongs to, and the sealed secret of a registered client (returned again to the same owner).
 */
export const m009Identity: Migration = {
  version: 9,
  name: 'identity',
  up: () => [
    `ALTER TABLE users ADD COLUMN claims TEXT NOT NULL DEFAULT '{}'`,
    `ALTER TABLE users ADD COLUMN source TEXT NOT NULL DEFAULT 'store'`,
    `CREATE TABLE roles (
      name TEXT PRIMARY KEY,
      scopes TEXT NOT NULL DEFAULT '',
      source TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE TABLE oauth_codes (
      code_hash TEXT PRIMARY KEY,
      request_id TEXT NOT NULL UNIQUE,
      client_id TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      scope TEXT NOT NULL,
      authorized_user TEXT NOT NULL,
      nonce TEXT,
      code_challenge TEXT,
      code_challenge_method TEXT,
      auth_time BIGINT NOT NULL,
      issued_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      state TEXT NOT NULL,
      token_id TEXT
    )`,
    `CREATE UNIQUE INDEX oauth_codes_nonce ON oauth_codes (client_id, nonce)`,
    `CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at)`,
    `CREATE TABLE api_keys (
      key_id TEXT PRIMARY KEY,
      application TEXT NOT NULL,
      key_type TEXT NOT NULL,
      issued_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      state TEXT NOT NULL,
      state_changed_at BIGINT
    )`,
    `CREATE INDEX api_keys_application ON api_keys (application, state)`,
    `ALTER TABLE application_keys ADD COLUMN key_manager TEXT`,
    `ALTER TABLE application_keys ADD COLUMN client_secret_sealed TEXT`,
  ],
};
