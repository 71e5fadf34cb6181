import type { Migration } from './types.js';

const COMMON = `
      token_format TEXT NOT NULL,
      client_id TEXT NOT NULL,
      application TEXT NOT NULL,
      key_type TEXT NOT NULL,
      authorized_user TEXT NOT NULL,
      user_type TEXT NOT NULL,
      scope TEXT NOT NULL,
      grant_type TEXT NOT NULL,
      issued_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      refresh_expires_at BIGINT,
      state_changed_at BIGINT,
      parent_token_id TEXT`;

/**
 * Access tokens and their refresh tokens, one row per issuance (the reference system's access-token table
 * holds both "spaces" the same way), and the audit table [oauth.token_cleanup] moves old rows to.
 */
export const m003OAuthTokens: Migration = {
  version: 3,
  name: 'oauth_tokens',
  up: () => [
    `CREATE TABLE oauth_tokens (
      token_id TEXT PRIMARY KEY,
      access_token_hash TEXT NOT NULL UNIQUE,
      access_token TEXT,
      refresh_token_hash TEXT UNIQUE,
      refresh_token TEXT,
      state TEXT NOT NULL,${COMMON}
    )`,
    `CREATE INDEX oauth_tokens_client ON oauth_tokens (client_id, state)`,
    `CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at)`,
    `CREATE TABLE oauth_tokens_audit (
      token_id TEXT PRIMARY KEY,
      access_token_hash TEXT NOT NULL,
      refresh_token_hash TEXT,
      final_state TEXT NOT NULL,${COMMON},
      audited_at BIGINT NOT NULL
    )`,
    `CREATE INDEX oauth_tokens_audit_client ON oauth_tokens_audit (client_id, audited_at)`,
  ],
};
