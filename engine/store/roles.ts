import type { Db } from './db.js';

/** A role and the scopes bound to it: a user's token carries a role-bound scope only through one of its roles. */
export interface RoleRecord {
  readonly name: string;
  readonly scopes: readonly string[];
  /** `admin-api`, a users file's path, or `store`. */
  readonly source: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

interface RoleRow { name: string; scopes: string; source: string; created_at: number; updated_at: number }

const toRecord = (r: RoleRow): RoleRecord => ({
  name: r.name,
  scopes: r.scopes.split(' ').filter(Boolean),
  source: r.source,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** The `roles` table. */
export class RoleTable {
  constructor(private readonly db: Db) {}

  async get(name: string): Promise<RoleRecord | undefined> {
    const row = await this.db.get<RoleRow>('SELECT * FROM roles WHERE name = ?', [name]);
    return row ? toRecord(row) : undefined;
  }

  async list(): Promise<RoleRecord[]> {
    return (await this.db.all<RoleRow>('SELECT * FROM roles ORDER BY name')).map(toRecord);
  }

  async namesBySource(source: string): Promise<string[]> {
    return (await this.db.all<{ name: string }>('SELECT name FROM roles WHERE source = ? ORDER BY name', [source])).map((r) => r.name);
  }

  async put(name: string, scopes: readonly string[], source: string, now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO roles (name, scopes, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET scopes = excluded.scopes, source = excluded.source, updated_at = excluded.updated_at`,
      [name, [...new Set(scopes)].join(' '), source, now, now],
    );
  }

  async delete(name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM roles WHERE name = ?', [name])).changes > 0;
  }
}
