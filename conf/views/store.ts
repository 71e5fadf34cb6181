import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';

/**
 * [database.apim_db]: where the apim_db store lives. type "h2" (the default, the reference system's embedded
 * database) is served by SQLite: the H2 JDBC URL's file path is kept and given the `.sqlite` extension
 * (`jdbc:h2:./repository/database/WSO2AM_DB;...` -> `<home>/repository/database/WSO2AM_DB.sqlite`).
 * type "postgre" uses PostgreSQL through `pg`. Other types are reported as unsupported at start.
 */
export type DatabaseView = SqliteDatabaseView | PostgresDatabaseView | UnsupportedDatabaseView;

export interface SqliteDatabaseView {
  readonly kind: 'sqlite';
  /** Absolute path, or `:memory:` for `jdbc:h2:mem:`. */
  readonly file: string;
}

export interface PostgresDatabaseView {
  readonly kind: 'postgres';
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** Query parameters of the URL (sslmode, ...). */
  readonly params: Readonly<Record<string, string>>;
  readonly maxConnections: number;
  /** ms to wait for a free connection. */
  readonly maxWait: number;
  readonly testOnBorrow: boolean;
  readonly validationQuery: string;
  /** ms between validations of an idle connection. */
  readonly validationInterval: number;
}

export interface UnsupportedDatabaseView {
  readonly kind: 'unsupported';
  readonly type: string;
  readonly reason: string;
}

export const DEFAULT_SQLITE_NAME = 'repository/database/WSO2AM_DB';

/** Maps an H2 JDBC URL to a SQLite file (exported for tests and docs). */
export function h2UrlToSqliteFile(url: string | undefined, homeRoot: string): string | { error: string } {
  if (!url) return path.join(homeRoot, `${DEFAULT_SQLITE_NAME}.sqlite`);
  const m = /^jdbc:h2:(.*)$/i.exec(url.trim());
  if (!m) return { error: `url "${url}" is not an H2 JDBC URL (jdbc:h2:<path>)` };
  let rest = m[1]!.split(';')[0]!.trim();
  if (/^mem:/i.test(rest)) return ':memory:';
  if (/^(tcp|ssl|zip):/i.test(rest)) return { error: `url "${url}": a remote or zipped H2 database cannot be served by the embedded store; use a file path` };
  rest = rest.replace(/^file:/i, '');
  if (rest === '') return { error: `url "${url}" names no file` };
  if (rest.startsWith('~')) rest = path.join(os.homedir(), rest.slice(1));
  const abs = path.isAbsolute(rest) ? rest : path.resolve(homeRoot, rest);
  return abs.endsWith('.sqlite') ? abs : `${abs}.sqlite`;
}

/** Parses `jdbc:postgresql://host:port/db?x=y` or `postgres://user:pass@host:port/db`. */
export function parsePostgresUrl(url: string): { host: string; port: number; database: string; user?: string; password?: string; params: Record<string, string> } | { error: string } {
  const text = url.trim().replace(/^jdbc:/i, '');
  let u: URL;
  try { u = new URL(text); } catch { return { error: `url "${url}" is not a PostgreSQL URL (jdbc:postgresql://host:port/database)` }; }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') return { error: `url "${url}" is not a PostgreSQL URL (jdbc:postgresql://host:port/database)` };
  const params: Record<string, string> = {};
  for (const [k, v] of u.searchParams) params[k] = v;
  const out: { host: string; port: number; database: string; user?: string; password?: string; params: Record<string, string> } = {
    host: decodeURIComponent(u.hostname) || 'localhost',
    port: u.port ? Number(u.port) : 5432,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'apim_db',
    params,
  };
  if (u.username) out.user = decodeURIComponent(u.username);
  if (u.password) out.password = decodeURIComponent(u.password);
  if (params['user']) out.user = params['user'];
  if (params['password']) out.password = params['password'];
  return out;
}

export function apimDbView(config: Config): DatabaseView {
  const type = config.get('database.apim_db.type');
  const url = config.get('database.apim_db.url');
  if (type === 'h2') {
    const file = h2UrlToSqliteFile(url, config.home.root);
    if (typeof file !== 'string') return { kind: 'unsupported', type, reason: file.error };
    return { kind: 'sqlite', file };
  }
  if (type === 'postgre') {
    let host = config.get('database.apim_db.hostname') ?? 'localhost';
    let port = config.get('database.apim_db.port') ?? 5432;
    let database = 'apim_db';
    let user = config.get('database.apim_db.username');
    let password = config.get('database.apim_db.password');
    let params: Record<string, string> = {};
    if (url) {
      const parsed = parsePostgresUrl(url);
      if ('error' in parsed) return { kind: 'unsupported', type, reason: parsed.error };
      ({ host, port, database, params } = parsed);
      user = parsed.user ?? user;
      password = parsed.password ?? password;
    }
    return {
      kind: 'postgres', host, port, database, user, password, params,
      maxConnections: Math.max(1, config.get('database.apim_db.pool_options.maxActive')),
      maxWait: config.get('database.apim_db.pool_options.maxWait'),
      testOnBorrow: config.get('database.apim_db.pool_options.testOnBorrow'),
      validationQuery: config.get('database.apim_db.validationQuery'),
      validationInterval: config.get('database.apim_db.pool_options.validationInterval'),
    };
  }
  return { kind: 'unsupported', type, reason: `[database.apim_db] type "${type}" is not supported by Sluice; use "h2" (embedded, SQLite) or "postgre" (PostgreSQL)` };
}
