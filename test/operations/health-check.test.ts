import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { startPostgres } from '../fixtures/postgres.js';
import { request as kmRequest } from '../fixtures/keymanager-harness.js';
import { request } from '../helpers/backends.js';

const HEALTH = '/api/health-check/v1.0/health';

t.test('health check on PostgreSQL: each checker reported; 503 when the database is gone; liveness stays up', async (t) => {
  const pg = await startPostgres(t);
  const url = await pg.createDatabase('health');
  const s = await startSluice(t, {
    carbon_health_check: { enable: true },
    database: { apim_db: { type: 'postgre', url, username: pg.user, password: pg.password, pool_options: { maxActive: 10, maxWait: 3000 } } },
  });
  const http = `http://127.0.0.1:${s.home.ports.servletHttp}`;
  const https = `https://127.0.0.1:${s.home.ports.servletHttps}`;
  const up = await request(`${http}${HEALTH}`);
  t.equal(up.status, 200, up.text);
  const body = up.json as { status: string; health: { key: string; value: string }[]; checkers: { name: string; status: string; order: number; details: Record<string, any> }[] };
  t.equal(body.status, 'UP');
  t.same(body.checkers.map((c) => [c.name, c.status]), [['data_source_health_checker', 'UP'], ['super_tenant_health_checker', 'UP']], 'each checker, in order (97, 98)');
  t.match(body.checkers[0]!.details['jdbc/WSO2AM_DB'], { dialect: 'postgres', status: 'UP', maxConnections: 10 });
  t.ok(body.health.some((h) => h.key === 'jdbc/WSO2AM_DB.active.connection.count'), 'the reference system\'s key/value list');
  t.equal((await kmRequest(`${https}${HEALTH}`)).status, 200, 'on the HTTPS servlet port too');
  t.equal((await request(`${http}/health/live`)).status, 200);
  t.equal((await request(`${http}/health/ready`)).status, 200);


  pg.stop();
  const down = await request(`${http}${HEALTH}`);
  t.equal(down.status, 503, 'the database is gone: 503');
  const d = down.json as { status: string; errors: { code: string; message: string }[]; checkers: { name: string; status: string }[] };
  t.equal(d.status, 'DOWN');
  t.ok(d.errors.some((e) => e.code === 'HC_00003' && /jdbc\/WSO2AM_DB/.test(e.message)), 'the data source error');
  t.match(d.checkers.find((c) => c.name === 'data_source_health_checker'), { status: 'DOWN' });
  t.match(d.checkers.find((c) => c.name === 'super_tenant_health_checker'), { status: 'DOWN' }, 'the user store lives there too');
  t.equal((await request(`${http}/health/live`)).status, 200, 'the process is alive');
});

t.test('pool usage above pool_usage_limit_percentage fails the check (HC_00004)', async (t) => {
  const pg = await startPostgres(t);
  const url = await pg.createDatabase('health_pool');
  const s = await startSluice(t, {
    carbon_health_check: { enable: true, health_checker: { data_source_health_checker: { properties: { pool_usage_limit_percentage: 25 } } } },
    database: { apim_db: { type: 'postgre', url, username: pg.user, password: pg.password, pool_options: { maxActive: 4, maxWait: 3000 } } },
  });
  const http = `http://127.0.0.1:${s.home.ports.servletHttp}`;
  t.equal((await request(`${http}${HEALTH}`)).status, 200, 'idle pool');
  const busy = Promise.all([0, 1].map(() => s.node.store!.db.get('SELECT pg_sleep(1.5)')));
  await new Promise((r) => setTimeout(r, 300));
  const r = await request(`${http}${HEALTH}`);
  t.equal(r.status, 503, '2 of 4 connections busy is above 25%');
  t.ok((r.json as { errors: { code: string }[] }).errors.some((e) => e.code === 'HC_00004'));
  await busy;
  t.equal((await request(`${http}${HEALTH}`)).status, 200, 'back to normal');
});

t.test('health check disabled: 404; liveness and readiness stay', async (t) => {
  const s = await startSluice(t, { carbon_health_check: { enable: false } });
  const http = `http://127.0.0.1:${s.home.ports.servletHttp}`;
  t.equal((await request(`${http}${HEALTH}`)).status, 404);
  t.equal((await request(`${http}/health/live`)).status, 200);
  t.equal((await request(`${http}/health/ready`)).status, 200);
});

t.test('SQLite: no pool, so the usage limit does not apply; monitored.datasources names what is checked', async (t) => {
  const zero = await startSluice(t, { carbon_health_check: { enable: true, health_checker: { data_source_health_checker: { properties: { pool_usage_limit_percentage: 0 } } } } });
  const z = await request(`http://127.0.0.1:${zero.home.ports.servletHttp}${HEALTH}`);
  t.equal(z.status, 200, z.text);
  t.match((z.json as { checkers: { details: Record<string, unknown> }[] }).checkers[0]!.details['jdbc/WSO2AM_DB'], { dialect: 'sqlite', status: 'UP' });
  const s = await startSluice(t, { carbon_health_check: { enable: true, health_checker: { data_source_health_checker: { properties: { 'monitored.datasources': ['jdbc/OTHER_DB'] } } } } });
  const r = await request(`http://127.0.0.1:${s.home.ports.servletHttp}${HEALTH}`);
  t.equal(r.status, 200);
  t.same((r.json as { checkers: { name: string; details: object }[] }).checkers.find((c) => c.name === 'data_source_health_checker')!.details, {}, 'WSO2AM_DB not monitored');
});
