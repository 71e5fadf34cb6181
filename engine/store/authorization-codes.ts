import type { Db } from './db.js';

/** One authorization code (RFC 6749 §4.1): only its hash is kept. */
export interface AuthorizationCodeRecord {
  readonly codeHash: string;
  /** The consent that produced the code: one code per consent, so a replayed consent form issues nothing. */
  readonly requestId: string;
  readonly clientId: string;
  /** The redirect_uri the authorization request named; empty when it named none (the registered one was used). */
  readonly redirectUri: string;
  /** Space-separated granted scopes. */
  readonly scope: string;
  readonly authorizedUser: string;
  /** The OpenID Connect nonce, echoed in the id_token; unique per client while the row is kept (replays refused). */
  readonly nonce: string | null;
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: 'S256' | 'plain' | null;
  /** ms: when the user authenticated (id_token auth_time). */
  readonly authTime: number;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export type CodeRedemption =
  | { readonly kind: 'redeemed'; readonly code: AuthorizationCodeRecord }
  /** Presented before: the tokens it produced must die (RFC 6749 §4.1.2). */
  | { readonly kind: 'reused'; readonly code: AuthorizationCodeRecord; readonly tokenId: string | null }
  | { readonly kind: 'expired' }
  | { readonly kind: 'unknown' };

interface CodeRow {
  code_hash: string; request_id: string; client_id: string; redirect_uri: string; scope: string; authorized_user: string;
  nonce: string | null; code_challenge: string | null; code_challenge_method: string | null; auth_time: number;
  issued_at: number; expires_at: number; state: string; token_id: string | null;
}

const toRecord = (r: CodeRow): AuthorizationCodeRecord => ({
  codeHash: r.code_hash,
  requestId: r.request_id,
  clientId: r.client_id,
  redirectUri: r.redirect_uri,
  scope: r.scope,
  authorizedUser: r.authorized_user,
  nonce: r.nonce,
  codeChallenge: r.code_challenge,
  codeChallengeMethod: r.code_challenge_method as AuthorizationCodeRecord['codeChallengeMethod'],
  authTime: Number(r.auth_time),
  issuedAt: Number(r.issued_at),
  expiresAt: Number(r.expires_at),
});

/** The `oauth_codes` table. */
export class AuthorizationCodeTable {
  constructor(private readonly db: Db) {}

  /** Throws UniqueViolationError when the consent (request id) already produced a code, or the client's nonce was used. */
  async insert(c: AuthorizationCodeRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO oauth_codes (code_hash, request_id, client_id, redirect_uri, scope, authorized_user, nonce, code_challenge,
        code_challenge_method, auth_time, issued_at, expires_at, state, token_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ACTIVE', NULL)`,
      [c.codeHash, c.requestId, c.clientId, c.redirectUri, c.scope, c.authorizedUser, c.nonce, c.codeChallenge,
        c.codeChallengeMethod, c.authTime, c.issuedAt, c.expiresAt],
    );
  }

  async find(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    const row = await this.db.get<CodeRow>('SELECT * FROM oauth_codes WHERE code_hash = ?', [codeHash]);
    return row ? toRecord(row) : undefined;
  }

  /** Whether this client already had a code issued with this nonce (kept until the row is cleaned up). */
  async nonceUsed(clientId: string, nonce: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS x FROM oauth_codes WHERE client_id = ? AND nonce = ?', [clientId, nonce])) !== undefined;
  }

  /**
   * Single use, decided by the store: one conditional UPDATE moves the code from ACTIVE to USED; the row
   * count says whether this call won. A code presented again is `reused` (with the token it produced).
   */
  async redeem(codeHash: string, now: number): Promise<CodeRedemption> {
    const { changes } = await this.db.run(`UPDATE oauth_codes SET state = 'USED' WHERE code_hash = ? AND state = 'ACTIVE' AND expires_at > ?`, [codeHash, now]);
    const row = await this.db.get<CodeRow>('SELECT * FROM oauth_codes WHERE code_hash = ?', [codeHash]);
    if (!row) return { kind: 'unknown' };
    if (changes === 1) return { kind: 'redeemed', code: toRecord(row) };
    if (row.state === 'ACTIVE') return { kind: 'expired' };
    return { kind: 'reused', code: toRecord(row), tokenId: row.token_id };
  }

  /** Records the token a redeemed code produced (revoked if the code is presented again). */
  async setToken(codeHash: string, tokenId: string): Promise<void> {
    await this.db.run('UPDATE oauth_codes SET token_id = ? WHERE code_hash = ?', [tokenId, codeHash]);
  }

  /** Codes that expired more than `retainMs` ago (their nonces are remembered that long). */
  async cleanup(now: number, retainMs: number): Promise<number> {
    return (await this.db.run('DELETE FROM oauth_codes WHERE expires_at <= ?', [now - retainMs])).changes;
  }
}
