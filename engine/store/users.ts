import type { Db } from './db.js';

export interface UserRecord {
  readonly username: string;
  /** `scrypt$N$r$p$salt$hash`; never a clear password. */
  readonly passwordHash: string;
  readonly roles: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

interface UserRow { username: string; password_hash: string; roles: string; created_at: number; updated_at: number }

const toRecord = (r: UserRow): UserRecord => ({
  username: r.username,
  passwordHash: r.password_hash,
  roles: r.roles ? r.roles.split(',').filter(Boolean) : [],
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

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

  /** Creates the user or replaces its password hash and roles. */
  async put(username: string, passwordHash: string, roles: readonly string[], now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO users (username, password_hash, roles, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash, roles = excluded.roles, updated_at = excluded.updated_at`,
      [username, passwordHash, roles.join(','), now, now],
    );
  }

  async delete(username: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM users WHERE username = ?', [username])).changes > 0;
  }
}
