import t from 'tap';
import { startPostgres } from '../fixtures/postgres.js';
import { adminApiFlow } from './helpers/admin-flow.js';

t.test('admin API end to end on PostgreSQL, persisted across a restart', async (t) => {
  const pg = await startPostgres(t);
  const url = await pg.createDatabase('admin_api');
  await adminApiFlow(t, { database: { apim_db: { type: 'postgre', url, username: pg.user, password: pg.password, pool_options: { maxActive: 10, maxWait: 5000 } } } });
});
