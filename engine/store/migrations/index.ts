import type { Db, Queryable } from '../db.js';
import type { Logger } from '../../log/logger.js';
import type { Migration } from './types.js';
import { m001Users } from './001-users.js';
import { m002Applications } from './002-applications.js';
import { m003OAuthTokens } from './003-oauth-tokens.js';
import { m004Apis } from './004-apis.js';
import { m005Throttling } from './005-throttling.js';
import { m006Gateways } from './006-gateways.js';
import { m007Events } from './007-events.js';
import { m008StoreProbe } from './008-store-probe.js';
import { m009Identity } from './009-identity.js';

export type { Migration };

/**
 * Every migration, in version order. Another table group adds its file here with the next number
 * (docs/store.md lists them).
 */
export const MIGRATIONS: readonly Migration[] = [m001Users, m002Applications, m003OAuthTokens, m004Apis, m005Throttling, m006Gateways, m007Events, m008StoreProbe, m009Identity];

const LOCK_ID = 0x51_75_1c_e0; // PostgreSQL advisory lock: one node migrates at a time.

/** Brings the schema to the newest version; each migration runs in its own transaction. Returns the versions applied. */
export async function migrate(db: Db, log?: Logger, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.version === sorted[i - 1]!.version) throw new Error(`two migrations have version ${sorted[i]!.version}`);
  }
  const applied: number[] = [];
  const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`;
  const pending = async (q: Queryable): Promise<Migration[]> => {
    const done = new Set((await q.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
    const known = new Set(sorted.map((m) => m.version));
    const unknown = [...done].filter((v) => !known.has(v));
    if (unknown.length) {
      throw new Error(`the database ${db.description} has schema version ${Math.max(...done)}, newer than this Sluice knows (${Math.max(0, ...known)}); upgrade Sluice`);
    }
    return sorted.filter((m) => !done.has(m.version));
  };
  const apply = async (tx: Queryable, m: Migration): Promise<void> => {
    for (const sql of m.up(db.dialect)) await tx.exec(sql);
    await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, Date.now()]);
    applied.push(m.version);
  };
  if (db.dialect === 'postgres') {
    // PostgreSQL has transactional DDL: every pending migration in one transaction, under an advisory lock
    // so that nodes starting together migrate one after the other.
    await db.transaction(async (tx) => {
      await tx.get('SELECT pg_advisory_xact_lock(?)', [LOCK_ID]);
      await tx.exec(create);
      for (const m of await pending(tx)) await apply(tx, m);
    });
  } else {
    await db.exec(create);
    for (const m of await pending(db)) await db.transaction((tx) => apply(tx, m));
  }
  for (const v of applied) {
    const m = sorted.find((x) => x.version === v)!;
    log?.info({ migration: m.version, name: m.name, db: db.description }, 'store migration applied');
  }
  return applied;
}
