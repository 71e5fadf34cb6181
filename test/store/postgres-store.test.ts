import t from 'tap';
import { PostgresDb, MIGRATIONS, migrate, openStore } from '../../engine/store/index.js';
import { parsePostgresUrl, type PostgresDatabaseView } from '../../conf/views/store.js';
import { storeContract } from '../fixtures/store-contract.js';
import { startPostgres } from '../fixtures/postgres.js';
import { captureLogger } from '../fixtures/keymanager-harness.js';

const server = await startPostgres(t);
let n = 0;

function view(url: string, over: Partial<PostgresDatabaseView> = {}): PostgresDatabaseView {
  const p = parsePostgresUrl(url);
  if ('error' in p) throw new Error(p.error);
  return {
    kind: 'postgres', host: p.host, port: p.port, database: p.database, user: server.user, password: server.password, params: p.params,
    maxConnections: 20, maxWait: 5000, testOnBorrow: true, validationQuery: 'SELECT 1', validationInterval: 30000, ...over,
  };
}

storeContract(t, async () => {
  const url = await server.createDatabase(`contract_${++n}`);
  const db = new PostgresDb(view(url), () => {});
  await migrate(db);
  return db;
});

t.test('PostgreSQL: two nodes migrating at once apply each migration once', async (t) => {
  const url = await server.createDatabase('concurrent_migrate');
  const dbs = [new PostgresDb(view(url), () => {}), new PostgresDb(view(url), () => {})];
  t.teardown(() => Promise.all(dbs.map((d) => d.close())));
  const applied = await Promise.all(dbs.map((d) => migrate(d)));
  t.equal(applied.flat().length, MIGRATIONS.length, `applied ${JSON.stringify(applied)}`);
});

t.test('PostgreSQL: a wrong password or an unreachable server fails start-up with a clear message', async (t) => {
  const url = await server.createDatabase('badauth');
  await t.rejects(openStore(view(url, { password: 'wrong' }), captureLogger().log), /PostgreSQL at postgresql:\/\/127\.0\.0\.1:\d+\/badauth cannot be used: .*password/);
  await t.rejects(openStore(view('jdbc:postgresql://127.0.0.1:1/x', { maxWait: 2000 }), captureLogger().log), /cannot be used/);
});
