import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { PostgresDatabaseView } from '../../conf/views/store.js';
import { StoreAvailability } from './availability.js';

export type SqlValue = string | number | bigint | null | Buffer;
export type Row = Record<string, unknown>;

/** What table modules run SQL through. SQL is written once with `?` placeholders for both dialects. */
export interface Queryable {
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** INSERT / UPDATE / DELETE: how many rows changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /** Statements without parameters (DDL), possibly several separated by semicolons. */
  exec(sql: string): Promise<void>;
}

export type Dialect = 'sqlite' | 'postgres';

export interface Db extends Queryable {
  readonly dialect: Dialect;
  /** A short description for logs (file path, host:port/database), never with a password. */
  readonly description: string;
  /**
   * Runs fn in one transaction; commits when it resolves, rolls back when it throws. Statements inside
   * must use the Queryable passed to fn (not the Db), and fn must not wait on anything but them.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Whether the store can be used now (a full disk, a lost database make it unavailable until a write succeeds). */
  readonly availability: StoreAvailability;
  close(): Promise<void>;
}

/** A UNIQUE or PRIMARY KEY constraint stopped an insert: the caller may retry with another key. */
export class UniqueViolationError extends Error {
  readonly code = 'SLUICE_STORE_UNIQUE_VIOLATION';
  constructor(override readonly cause: unknown) {
    super(`unique constraint violated: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'UniqueViolationError';
  }
}

/** The store cannot be reached or answered with an error that is not the caller's fault. */
export class StoreUnavailableError extends Error {
  readonly code = 'SLUICE_STORE_UNAVAILABLE';
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Errors that say the store cannot be used now rather than that the statement is wrong. SQLite: a full disk,
 * I/O errors, a read-only or unopenable file, a lock held past busy_timeout, no memory. PostgreSQL: the
 * SQLSTATE classes 08 (connection exception), 53 (insufficient resources: disk full, out of memory, too many
 * connections), 57P01-57P03 (shut down or starting) and 58 (I/O error); socket errors; pg's own messages for
 * a connection that ended or could not be made in time.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY|LOCKED|NOMEM|PROTOCOL)/;
const PG_UNAVAILABLE = /^(08...|53...|57P0[123]|58...)$/;
const SOCKET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOSPC', 'EIO']);
const PG_CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended unexpectedly/i;

export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code !== '' && (SQLITE_UNAVAILABLE.test(code) || PG_UNAVAILABLE.test(code) || SOCKET_UNAVAILABLE.has(code))) return true;
  return typeof e?.message === 'string' && PG_CONNECTION_MESSAGES.test(e.message);
}

function classify(err: unknown, description?: string): Error {
  const code = (err as { code?: string })?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505') return new UniqueViolationError(err);
  if (!(err instanceof StoreUnavailableError) && isUnavailable(err)) {
    const what = code ? `${code}: ${(err as Error).message}` : (err as Error).message;
    return new StoreUnavailableError(`the store${description ? ` ${description}` : ''} is unavailable (${what})`, err);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The probe write of StoreAvailability: one row, rewritten (migration 008). */
const PROBE_SQL = 'INSERT INTO store_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at';

/**
 * The availability of a store, its failures and successes noted by the store's statements. A probe that
 * fails for another reason than unavailability (the table is missing) proves that the store answers.
 */
function availabilityOf(db: { run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> }): StoreAvailability {
  const a: StoreAvailability = new StoreAvailability(async () => {
    try { await db.run(PROBE_SQL, [Date.now()]); } catch (err) { if (!isUnavailable(err)) a.succeeded(); }
  });
  return a;
}

// ---------------------------------------------------------------------------------------------- SQLite

/**
 * SQLite through better-sqlite3 (synchronous; each statement takes microseconds). WAL journal with
 * synchronous=NORMAL: a commit is in the WAL file before the call returns, so it survives the process
 * being killed; an operating-system crash may lose the last commits. Transactions are serialized by a
 * queue, and statements issued outside a transaction wait for the one running to finish.
 */
export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly description: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private tail: Promise<void> = Promise.resolve();
  private pendingTx = 0;
  private readonly direct: Queryable;
  readonly availability: StoreAvailability;

  constructor(readonly file: string) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    this.description = file;
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    if (file !== ':memory:') { try { fs.chmodSync(file, 0o600); } catch { /* not ours to fix */ } }
    const self = this;
    this.direct = {
      async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> { return self.exec_(() => self.stmt(sql).all(...params) as T[]); },
      async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> { return self.exec_(() => self.stmt(sql).get(...params) as T | undefined); },
      async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> { return self.write_(() => ({ changes: self.stmt(sql).run(...params).changes })); },
      async exec(sql: string): Promise<void> { self.write_(() => self.db.exec(sql)); },
    };
    this.availability = availabilityOf(this);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      if (this.statements.size > 500) this.statements.clear();
      this.statements.set(sql, s);
    }
    return s;
  }

  private exec_<T>(fn: () => T): T {
    try { return fn(); } catch (err) { throw this.failed(err); }
  }

  /** A statement that writes: its success tells that the store can be written again. */
  private write_<T>(fn: () => T): T {
    const r = this.exec_(fn);
    if (this.pendingTx === 0) this.availability.succeeded();
    return r;
  }

  private failed(err: unknown): Error {
    const e = classify(err, this.description);
    if (e instanceof StoreUnavailableError) this.availability.failed(e);
    return e;
  }

  private async outside<T>(fn: () => Promise<T>): Promise<T> {
    while (this.pendingTx > 0) await this.tail;
    return fn();
  }

  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> { return this.outside(() => this.direct.all<T>(sql, params)); }
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> { return this.outside(() => this.direct.get<T>(sql, params)); }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> { return this.outside(() => this.direct.run(sql, params)); }
  exec(sql: string): Promise<void> { return this.outside(() => this.direct.exec(sql)); }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.pendingTx++;
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => { release = r; });
    try {
      await prev;
      this.exec_(() => this.db.exec('BEGIN IMMEDIATE'));
      try {
        const result = await fn(this.direct);
        // COMMIT is where a full disk usually shows (the WAL grows): it must be classified like any statement.
        this.exec_(() => this.db.exec('COMMIT'));
        this.availability.succeeded();
        return result;
      } catch (err) {
        if (this.db.inTransaction) { try { this.db.exec('ROLLBACK'); } catch { /* the transaction is gone with the failure */ } }
        throw err;
      }
    } finally {
      this.pendingTx--;
      release();
    }
  }

  async close(): Promise<void> {
    this.availability.close();
    while (this.pendingTx > 0) await this.tail;
    if (this.db.open) {
      try { this.db.pragma('wal_checkpoint(TRUNCATE)'); } catch { /* best effort */ }
      this.db.close();
    }
  }
}

// ------------------------------------------------------------------------------------------ PostgreSQL

/** `?` placeholders to `$1..$n` (our SQL never holds a `?` inside a literal). */
export function toPgPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const INT8 = 20;
const pgTypes = {
  getTypeParser(oid: number, format?: string): (v: string) => unknown {
    if (oid === INT8) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text') as (v: string) => unknown;
  },
};

function pgQueryable(q: { query: (text: string, values?: unknown[]) => Promise<pg.QueryResult> }, onError: (err: unknown) => Error, onWrite: () => void): Queryable {
  const cache = new Map<string, string>();
  const text = (sql: string): string => {
    let t = cache.get(sql);
    if (t === undefined) { t = toPgPlaceholders(sql); if (cache.size > 500) cache.clear(); cache.set(sql, t); }
    return t;
  };
  const query = async (sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> => {
    try { return await q.query(text(sql), params as unknown[]); } catch (err) { throw onError(err); }
  };
  return {
    async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> { return (await query(sql, params)).rows as T[]; },
    async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> { return (await query(sql, params)).rows[0] as T | undefined; },
    async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> { const r = await query(sql, params); onWrite(); return { changes: r.rowCount ?? 0 }; },
    async exec(sql: string): Promise<void> { try { await q.query(sql); } catch (err) { throw onError(err); } onWrite(); },
  };
}

/** A client's 'error' is seen by the statements it fails and by pg-pool; this only keeps it from being unhandled. */
const ignoreNoted = (): void => {};

/** PostgreSQL through a pg Pool sized by [database.apim_db] pool_options. */
export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  readonly description: string;
  private readonly pool: pg.Pool;
  private readonly q: Queryable;
  private readonly maxConnections: number;
  readonly availability: StoreAvailability;
  private readonly failed = (err: unknown): Error => {
    const e = classify(err, this.description);
    if (e instanceof StoreUnavailableError) this.availability.failed(e);
    return e;
  };
  private readonly wrote = (): void => { this.availability.succeeded(); };
  /** Statements inside a transaction: a write there proves nothing until the COMMIT. */
  private readonly noted = (): void => {};

  constructor(view: PostgresDatabaseView, onError: (err: Error) => void) {
    this.maxConnections = view.maxConnections;
    this.description = `postgresql://${view.host}:${view.port}/${view.database}`;
    const ssl = view.params['sslmode'] && view.params['sslmode'] !== 'disable' ? { rejectUnauthorized: view.params['sslmode'] === 'verify-full' } : undefined;
    this.pool = new pg.Pool({
      host: view.host, port: view.port, database: view.database,
      ...(view.user !== undefined ? { user: view.user } : {}),
      ...(view.password !== undefined ? { password: view.password } : {}),
      ...(ssl ? { ssl } : {}),
      max: view.maxConnections,
      connectionTimeoutMillis: view.maxWait,
      idleTimeoutMillis: Math.max(view.validationInterval, 10_000),
      types: pgTypes,
      application_name: 'sluice',
    });
    // An idle client losing its connection must not crash the process.
    this.pool.on('error', (err) => onError(err));
    // Nor a checked-out one: pg-pool takes its own 'error' listener off a client while it is lent, and a
    // connection can fail in the same read that ended the previous statement, before whoever borrowed it has
    // attached one (pg_terminate_backend sends its FATAL right behind the last answer). Every client keeps a
    // listener of its own for its whole life; the failed statements and pg-pool (which drops a client that is
    // no longer queryable when it comes back) do the rest.
    this.pool.on('connect', (client) => { client.on('error', ignoreNoted); });
    this.q = pgQueryable(this.pool, this.failed, this.wrote);
    this.availability = availabilityOf(this);
  }

  /** Runs the validation query once, so that a wrong URL or password fails start-up with a clear message. */
  async check(validationQuery: string): Promise<void> {
    try {
      await this.pool.query(validationQuery);
    } catch (err) {
      throw new StoreUnavailableError(`PostgreSQL at ${this.description} cannot be used: ${(err as Error).message}`, err);
    }
  }

  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> { return this.q.all<T>(sql, params); }
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> { return this.q.get<T>(sql, params); }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> { return this.q.run(sql, params); }
  exec(sql: string): Promise<void> { return this.q.exec(sql); }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      const e = new StoreUnavailableError(`PostgreSQL at ${this.description}: ${(err as Error).message}`, err);
      this.availability.failed(e);
      throw e;
    }
    // A connection lost in the middle of the transaction (pg_terminate_backend, a restart, a network cut):
    // the client is given back as broken, so that the pool discards it.
    let lost: Error | null = null;
    const onLost = (err: Error): void => { lost ??= err; };
    client.on('error', onLost);
    let broken = false;
    try {
      await this.step(client, 'BEGIN');
      try {
        const result = await fn(pgQueryable(client, this.failed, this.noted));
        await this.step(client, 'COMMIT');
        this.availability.succeeded();
        return result;
      } catch (err) {
        try { await client.query('ROLLBACK'); } catch { broken = true; }
        throw err;
      }
    } finally {
      // A client whose connection failed is discarded by the pool (release with an error), not reused.
      client.release(lost ?? broken);
      client.off('error', onLost);
    }
  }

  private async step(client: pg.PoolClient, sql: string): Promise<void> {
    try { await client.query(sql); } catch (err) { throw this.failed(err); }
  }

  /** Connections of the pool, for the health check and the metrics. */
  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount, max: this.maxConnections };
  }

  async close(): Promise<void> {
    this.availability.close();
    await this.pool.end();
  }
}

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  readonly max: number;
}
