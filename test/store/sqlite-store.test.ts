import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteDb, migrate, openStore } from '../../engine/store/index.js';
import { h2UrlToSqliteFile, parsePostgresUrl } from '../../conf/views/store.js';
import { storeContract } from '../fixtures/store-contract.js';
import { captureLogger } from '../fixtures/keymanager-harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-sqlite-test-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

storeContract(t, async () => {
  const db = new SqliteDb(path.join(dir, `db-${++n}.sqlite`));
  await migrate(db);
  return db;
});

t.test('SQLite: WAL, a 0600 file, the H2 URL mapped into the home', async (t) => {
  const file = path.join(dir, 'repository/database/WSO2AM_DB.sqlite');
  const store = await openStore({ kind: 'sqlite', file }, captureLogger().log);
  t.equal(fs.statSync(file).mode & 0o777, 0o600);
  const mode = await store.db.get<{ journal_mode: string }>('PRAGMA journal_mode');
  t.equal(mode!.journal_mode, 'wal');
  await store.close();
  t.equal(h2UrlToSqliteFile('jdbc:h2:./repository/database/WSO2AM_DB;DB_CLOSE_ON_EXIT=FALSE', '/h'), '/h/repository/database/WSO2AM_DB.sqlite');
  t.equal(h2UrlToSqliteFile(undefined, '/h'), '/h/repository/database/WSO2AM_DB.sqlite');
  t.equal(h2UrlToSqliteFile('jdbc:h2:file:/data/am;AUTO_SERVER=TRUE', '/h'), '/data/am.sqlite');
  t.equal(h2UrlToSqliteFile('jdbc:h2:mem:test', '/h'), ':memory:');
  t.match(h2UrlToSqliteFile('jdbc:h2:tcp://db/am', '/h'), { error: /remote/ });
  t.match(h2UrlToSqliteFile('jdbc:mysql://x/y', '/h'), { error: /not an H2 JDBC URL/ });
  t.same(parsePostgresUrl('jdbc:postgresql://db.example:5433/apim?sslmode=require&user=u&password=p%40ss'),
    { host: 'db.example', port: 5433, database: 'apim', user: 'u', password: 'p@ss', params: { sslmode: 'require', user: 'u', password: 'p@ss' } });
  t.same(parsePostgresUrl('postgres://u:p%40ss@h/d'), { host: 'h', port: 5432, database: 'd', user: 'u', password: 'p@ss', params: {} });
});

t.test('SQLite: unsupported database types are refused with a reason', async (t) => {
  await t.rejects(openStore({ kind: 'unsupported', type: 'mysql', reason: 'type "mysql" is not supported' }, captureLogger().log), /not supported/);
});
