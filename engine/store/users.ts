import type { Db } from './db.js';

/** Profile claims of a user (OpenID Connect standard claim names: name, email, given_name...). */
export type UserClaims = Readonly<Record<string, string>>;

export interface UserRecord {
  readonly username: string;
  /** `scrypt$N$r$p$salt$hash`; never a clear password. */
  readonly passwordHash: string;
  readonly roles: readonly string[];
  readonly claims: UserClaims;
  /** `config` ([super_admin]), `admin-api`, a users file's path, or `store`. */
  readonly source: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

interface UserRow { username: string; password_hash: string; roles: string; claims: string | null; source: string | null; created_at: number; updated_at: number }

function parseClaims(text: string | null): UserClaims {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => typeof x === 'string')) as UserClaims;
  } catch {
    return {};
  }
}

const toRecord = (r: UserRow): UserRecord => ({
  username: r.username,
  passwordHash: r.password_hash,
  roles: r.roles ? r.roles.split(',').filter(Boolean) : [],
  claims: parseClaims(r.claims),
  source: r.source ?? 'store',
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export interface UserWrite {
  readonly claims?: UserClaims;
  readonly source?: string;
}

/** The `users` table: the embedded user store. */
export class UserTable {
  constructor(private readonly db: Db) {}

  async get(username: string): Promise<UserRecord | undefined> {
    const row = await this.db.get<UserRow>('SELECT * FROM users WHERE username = ?', [username]);
    return row ? toRecord(row) : undefined;
  }

  async list(): Promise<UserRecord[]> {
    return (await this.db.all<UserRow>('SELECT * FROM users ORDER BY username')).map(toRecord);
  }

  async namesBySource(source: string): Promise<string[]> {
    return (await this.db.all<{ username: string }>('SELECT username FROM users WHERE source = ? ORDER BY username', [source])).map((r) => r.username);
  }

  /**
   * Creates the user or replaces its password hash and roles (and its claims and source when given; a
   * user created without them has none and the source `store`).
   */
  async put(username: string, passwordHash: string, roles: readonly string[], now = Date.now(), w: UserWrite = {}): Promise<void> {
    // Two statements rather than a CASE on a parameter: PostgreSQL cannot type `$n IS NULL`.
    const keep = w.claims === undefined || w.source === undefined;
    await this.db.run(
      `INSERT INTO users (username, password_hash, roles, claims, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash, roles = excluded.roles,${keep ? '' : `
         claims = excluded.claims, source = excluded.source,`} updated_at = excluded.updated_at`,
      [username, passwordHash, roles.join(','), JSON.stringify(w.claims ?? {}), w.source ?? 'store', now, now],
    );
  }

  async delete(username: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM users WHERE username = ?', [username])).changes > 0;
  }
}
