import type { Db, Queryable } from './db.js';

/**
 * ACTIVE: usable. INACTIVE: its refresh token was used (the pair was replaced by a newer one).
 * REVOKED: revoked through /oauth2/revoke or because its application or key went away.
 * EXPIRED: only in the audit table, for rows that were still ACTIVE when they expired.
 */
export type TokenState = 'ACTIVE' | 'INACTIVE' | 'REVOKED' | 'EXPIRED';
export type TokenFormat = 'JWT' | 'OPAQUE';
export type UserType = 'APPLICATION' | 'APPLICATION_USER';

/** One issuance: an access token and, optionally, its refresh token. */
export interface TokenRecord {
  /** JWT: the jti claim. Opaque: base64url SHA-256 of the token (equal to accessTokenHash). */
  readonly tokenId: string;
  /** base64url SHA-256 of the access token: the lookup key. */
  readonly accessTokenHash: string;
  /** The token as stored: clear, `enc:` (encrypted) or null (hashing on). */
  readonly accessTokenStored: string | null;
  readonly refreshTokenHash: string | null;
  readonly refreshTokenStored: string | null;
  readonly format: TokenFormat;
  readonly clientId: string;
  readonly application: string;
  readonly keyType: string;
  /** The resource owner (password grant) or the application owner (client credentials). */
  readonly authorizedUser: string;
  readonly userType: UserType;
  /** Space-separated. */
  readonly scope: string;
  readonly grantType: string;
  /** ms since epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly refreshExpiresAt: number | null;
  readonly state: TokenState;
  readonly stateChangedAt: number | null;
  /** The issuance whose refresh token produced this one. */
  readonly parentTokenId: string | null;
}

/** What a revocation changed, for the token.revoked event. */
export interface RevokedToken {
  readonly tokenId: string;
  readonly format: TokenFormat;
  readonly clientId: string;
  readonly expiresAt: number;
}

interface TokenRow {
  token_id: string; access_token_hash: string; access_token: string | null; refresh_token_hash: string | null; refresh_token: string | null;
  state: string; token_format: string; client_id: string; application: string; key_type: string; authorized_user: string; user_type: string;
  scope: string; grant_type: string; issued_at: number; expires_at: number; refresh_expires_at: number | null; state_changed_at: number | null;
  parent_token_id: string | null;
}

const COLUMNS = 'token_id, access_token_hash, access_token, refresh_token_hash, refresh_token, state, token_format, client_id, application, '
  + 'key_type, authorized_user, user_type, scope, grant_type, issued_at, expires_at, refresh_expires_at, state_changed_at, parent_token_id';
const INSERT = `INSERT INTO oauth_tokens (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const AUDIT_COLUMNS = 'token_id, access_token_hash, refresh_token_hash, token_format, client_id, application, key_type, authorized_user, '
  + 'user_type, scope, grant_type, issued_at, expires_at, refresh_expires_at, state_changed_at, parent_token_id';

function toRecord(r: TokenRow): TokenRecord {
  return {
    tokenId: r.token_id,
    accessTokenHash: r.access_token_hash,
    accessTokenStored: r.access_token,
    refreshTokenHash: r.refresh_token_hash,
    refreshTokenStored: r.refresh_token,
    format: r.token_format as TokenFormat,
    clientId: r.client_id,
    application: r.application,
    keyType: r.key_type,
    authorizedUser: r.authorized_user,
    userType: r.user_type as UserType,
    scope: r.scope,
    grantType: r.grant_type,
    issuedAt: Number(r.issued_at),
    expiresAt: Number(r.expires_at),
    refreshExpiresAt: r.refresh_expires_at === null ? null : Number(r.refresh_expires_at),
    state: r.state as TokenState,
    stateChangedAt: r.state_changed_at === null ? null : Number(r.state_changed_at),
    parentTokenId: r.parent_token_id,
  };
}

function params(t: TokenRecord): (string | number | null)[] {
  return [t.tokenId, t.accessTokenHash, t.accessTokenStored, t.refreshTokenHash, t.refreshTokenStored, t.state, t.format, t.clientId,
    t.application, t.keyType, t.authorizedUser, t.userType, t.scope, t.grantType, t.issuedAt, t.expiresAt, t.refreshExpiresAt,
    t.stateChangedAt, t.parentTokenId];
}

export type RotateResult =
  | { readonly kind: 'rotated'; readonly previous: TokenRecord }
  /** Another request used (or revoked) the refresh token first, or it expired meanwhile. */
  | { readonly kind: 'lost' };

/** The `oauth_tokens` and `oauth_tokens_audit` tables. */
export class TokenTable {
  constructor(private readonly db: Db) {}

  /** Throws UniqueViolationError when a token id or hash is already taken. */
  async insert(t: TokenRecord): Promise<void> {
    await this.db.run(INSERT, params(t));
  }

  /** Several tokens in one transaction (batched persistence). All or none. */
  async insertMany(list: readonly TokenRecord[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const t of list) await tx.run(INSERT, params(t));
    });
  }

  async findByAccessHash(hash: string): Promise<TokenRecord | undefined> {
    const r = await this.db.get<TokenRow>(`SELECT ${COLUMNS} FROM oauth_tokens WHERE access_token_hash = ?`, [hash]);
    return r ? toRecord(r) : undefined;
  }

  async findByRefreshHash(hash: string): Promise<TokenRecord | undefined> {
    const r = await this.db.get<TokenRow>(`SELECT ${COLUMNS} FROM oauth_tokens WHERE refresh_token_hash = ?`, [hash]);
    return r ? toRecord(r) : undefined;
  }

  async findById(tokenId: string): Promise<TokenRecord | undefined> {
    const r = await this.db.get<TokenRow>(`SELECT ${COLUMNS} FROM oauth_tokens WHERE token_id = ?`, [tokenId]);
    return r ? toRecord(r) : undefined;
  }

  /**
   * Single use of a refresh token, decided by the store: one conditional UPDATE retires the old pair only
   * if it is still ACTIVE, unexpired and the caller's; the changed-row count says who won. The new pair is
   * inserted in the same transaction, so either both happen or neither does.
   */
  async rotateRefresh(refreshHash: string, clientId: string, now: number, next: TokenRecord): Promise<RotateResult> {
    return this.db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `UPDATE oauth_tokens SET state = 'INACTIVE', state_changed_at = ?
         WHERE refresh_token_hash = ? AND client_id = ? AND state = 'ACTIVE' AND refresh_expires_at > ?`,
        [now, refreshHash, clientId, now],
      );
      if (changes !== 1) return { kind: 'lost' } as const;
      const prev = await tx.get<TokenRow>(`SELECT ${COLUMNS} FROM oauth_tokens WHERE refresh_token_hash = ?`, [refreshHash]);
      await tx.run(INSERT, params(next));
      return { kind: 'rotated', previous: toRecord(prev!) } as const;
    });
  }

  /** Revokes one issuance (access and refresh token together). True when it was ACTIVE. */
  async revoke(tokenId: string, now: number): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE oauth_tokens SET state = 'REVOKED', state_changed_at = ? WHERE token_id = ? AND state = 'ACTIVE'`, [now, tokenId]);
    return changes === 1;
  }

  /** Revokes every active token of these clients (their application or key was removed). */
  async revokeByClients(clientIds: readonly string[], now: number): Promise<RevokedToken[]> {
    if (clientIds.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const out: RevokedToken[] = [];
      for (const id of clientIds) {
        const rows = await tx.all<{ token_id: string; token_format: string; client_id: string; expires_at: number }>(
          `UPDATE oauth_tokens SET state = 'REVOKED', state_changed_at = ? WHERE client_id = ? AND state = 'ACTIVE'
           RETURNING token_id, token_format, client_id, expires_at`, [now, id]);
        for (const r of rows) out.push({ tokenId: r.token_id, format: r.token_format as TokenFormat, clientId: r.client_id, expiresAt: Number(r.expires_at) });
      }
      return out;
    });
  }

  /**
   * Access tokens that are not ACTIVE but would still pass a signature check (revoked or replaced JWTs
   * and opaque tokens not yet expired): what a gateway starting up loads into its revocation list.
   */
  async listInvalidUnexpired(now: number): Promise<RevokedToken[]> {
    const rows = await this.db.all<{ token_id: string; token_format: string; client_id: string; expires_at: number }>(
      `SELECT token_id, token_format, client_id, expires_at FROM oauth_tokens WHERE state <> 'ACTIVE' AND expires_at > ?`, [now]);
    return rows.map((r) => ({ tokenId: r.token_id, format: r.token_format as TokenFormat, clientId: r.client_id, expiresAt: Number(r.expires_at) }));
  }

  async countByState(): Promise<Record<string, number>> {
    const rows = await this.db.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM oauth_tokens GROUP BY state');
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  /**
   * [oauth.token_cleanup]: removes rows whose access token has expired and whose refresh token can no longer
   * be used (none, expired, used or revoked). With `retain`, they are copied to oauth_tokens_audit first
   * (without the stored token text), in the same transaction. Works in batches; returns the count.
   */
  async cleanup(now: number, retain: boolean, batchSize = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.db.transaction(async (tx) => {
        const ids = (await tx.all<{ token_id: string }>(
          `SELECT token_id FROM oauth_tokens
           WHERE expires_at <= ? AND (refresh_expires_at IS NULL OR refresh_expires_at <= ? OR state <> 'ACTIVE')
           LIMIT ?`, [now, now, batchSize])).map((r) => r.token_id);
        if (ids.length === 0) return 0;
        const marks = ids.map(() => '?').join(', ');
        if (retain) {
          await tx.run(
            `INSERT INTO oauth_tokens_audit (${AUDIT_COLUMNS}, final_state, audited_at)
             SELECT ${AUDIT_COLUMNS}, CASE WHEN state = 'ACTIVE' THEN 'EXPIRED' ELSE state END, ?
             FROM oauth_tokens WHERE token_id IN (${marks})
             ON CONFLICT (token_id) DO NOTHING`, [now, ...ids]);
        }
        await tx.run(`DELETE FROM oauth_tokens WHERE token_id IN (${marks})`, ids);
        return ids.length;
      });
      total += n;
      if (n < batchSize) return total;
    }
  }

  async auditCount(q: Queryable = this.db): Promise<number> {
    const r = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM oauth_tokens_audit');
    return Number(r?.n ?? 0);
  }
}
