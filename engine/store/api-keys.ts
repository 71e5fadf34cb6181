import type { Db } from './db.js';

export type ApiKeyState = 'ACTIVE' | 'REVOKED';

/** An API key's record: the key itself is a signed JWT held by the application; the store keeps its id. */
export interface ApiKeyRecord {
  /** The key's jti. */
  readonly keyId: string;
  readonly application: string;
  readonly keyType: string;
  readonly issuedAt: number;
  /** ms; a key issued without expiry holds NO_EXPIRY. */
  readonly expiresAt: number;
  readonly state: ApiKeyState;
}

/** The expiry recorded for a key issued without one (year 9999). */
export const NO_EXPIRY = 253402300799000;

interface Row { key_id: string; application: string; key_type: string; issued_at: number; expires_at: number; state: string }

const toRecord = (r: Row): ApiKeyRecord => ({
  keyId: r.key_id, application: r.application, keyType: r.key_type, issuedAt: Number(r.issued_at), expiresAt: Number(r.expires_at), state: r.state as ApiKeyState,
});

/** The `api_keys` table. */
export class ApiKeyTable {
  constructor(private readonly db: Db) {}

  async insert(k: Omit<ApiKeyRecord, 'state'>): Promise<void> {
    await this.db.run(`INSERT INTO api_keys (key_id, application, key_type, issued_at, expires_at, state) VALUES (?, ?, ?, ?, ?, 'ACTIVE')`,
      [k.keyId, k.application, k.keyType, k.issuedAt, k.expiresAt]);
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const r = await this.db.get<Row>('SELECT * FROM api_keys WHERE key_id = ?', [keyId]);
    return r ? toRecord(r) : undefined;
  }

  async listByApplication(application: string): Promise<ApiKeyRecord[]> {
    return (await this.db.all<Row>('SELECT * FROM api_keys WHERE application = ? ORDER BY issued_at', [application])).map(toRecord);
  }

  /** True when the key was ACTIVE. */
  async revoke(keyId: string, now: number): Promise<boolean> {
    return (await this.db.run(`UPDATE api_keys SET state = 'REVOKED', state_changed_at = ? WHERE key_id = ? AND state = 'ACTIVE'`, [now, keyId])).changes === 1;
  }

  /** Revokes every active key of an application (it was deleted); returns them. */
  async revokeByApplication(application: string, now: number): Promise<ApiKeyRecord[]> {
    const rows = await this.db.all<Row>(`UPDATE api_keys SET state = 'REVOKED', state_changed_at = ? WHERE application = ? AND state = 'ACTIVE' RETURNING *`, [now, application]);
    return rows.map(toRecord);
  }

  /** Revoked keys that would still verify: what a starting gateway adds to its revocation list. */
  async listRevokedUnexpired(now: number): Promise<ApiKeyRecord[]> {
    return (await this.db.all<Row>(`SELECT * FROM api_keys WHERE state = 'REVOKED' AND expires_at > ?`, [now])).map(toRecord);
  }
}
