import t from 'tap';
import { startTestKeyManager, basic } from '../fixtures/keymanager-harness.js';
import { startPostgres } from '../fixtures/postgres.js';
import { loadConfig } from '../../conf/loader.js';
import { startKeyManager } from '../../engine/keymanager/start.js';
import { LocalEventBus } from '../../engine/events/event-bus.js';
import { captureLogger, makeHome } from '../fixtures/keymanager-harness.js';

const server = await startPostgres(t);

const pgConf = (url: string, password = server.password) => ({
  database: { apim_db: { type: 'postgre', url, username: server.user, password, pool_options: { maxActive: 10, maxWait: 5000 } } },
});

t.test('the key manager on PostgreSQL ([database.apim_db] type = "postgre"): grants, race, revocation, restart', async (t) => {
  const url = await server.createDatabase('km_e2e');
  const k = await startTestKeyManager(t, { conf: pgConf(url) });
  t.match(k.logs.lines.find((l) => l['msg'] === 'apim_db store open'), { dialect: 'postgres', db: `postgresql://127.0.0.1:${server.port}/km_e2e` });
  const cc = await k.token({ grant_type: 'client_credentials' });
  t.equal(cc.status, 200);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal(pw.status, 200);
  const race = await Promise.all(Array.from({ length: 8 }, () => k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token })));
  t.equal(race.filter((r) => r.status === 200).length, 1, 'exactly 1 of 8 concurrent refreshes');
  t.ok(race.filter((r) => r.status !== 200).every((r) => r.json.error === 'invalid_grant'));
  const winner = race.find((r) => r.status === 200)!.json;
  const rv = await k.post('/oauth2/revoke', { token: winner.refresh_token }, { authorization: basic('acme-client', 'acme-secret') });
  t.equal(rv.status, 200);
  t.ok(rv.headers['revokedaccesstoken'] && rv.headers['revokedrefreshtoken']);
  await k.stop();
  const k2 = await startTestKeyManager(t, { home: k.home });
  t.equal((await k2.introspect(cc.json.access_token)).json.active, true, 'persisted across a restart');
  t.equal((await k2.introspect(winner.access_token)).json.active, false);
  t.equal((await k2.token({ grant_type: 'refresh_token', refresh_token: winner.refresh_token })).json.error, 'invalid_grant');
});

t.test('the key manager on PostgreSQL with batched persistence', async (t) => {
  const url = await server.createDatabase('km_batched');
  const k = await startTestKeyManager(t, { conf: { ...pgConf(url), session_data: { persistence: { persistence_pool_size: 4 } } } });
  const list = await Promise.all(Array.from({ length: 40 }, () => k.token({ grant_type: 'client_credentials' })));
  t.ok(list.every((r) => r.status === 200));
  t.equal((await k.km.store.tokens.countByState())['ACTIVE'], 40);
});

t.test('a wrong PostgreSQL password: the key manager does not start and says why', async (t) => {
  const url = await server.createDatabase('km_badpw');
  const home = makeHome(t, { conf: pgConf(url, 'wrong') });
  await t.rejects(startKeyManager(loadConfig(home), captureLogger().log, new LocalEventBus(), { httpsPort: 0, httpPort: 0, host: '127.0.0.1' }),
    /PostgreSQL at postgresql:\/\/127\.0\.0\.1:\d+\/km_badpw cannot be used/);
});

t.test('PostgreSQL going away: token requests get 503 temporarily_unavailable and the process keeps serving', async (t) => {
  const own = await startPostgres(t);
  const url = await own.createDatabase('km_outage');
  const k = await startTestKeyManager(t, { conf: { database: { apim_db: { type: 'postgre', url, username: own.user, password: own.password, pool_options: { maxActive: 4, maxWait: 2000 } } } } });
  t.equal((await k.token({ grant_type: 'client_credentials' })).status, 200);
  own.stop();
  for (let i = 0; i < 3; i++) {
    const r = await k.token({ grant_type: 'client_credentials' });
    t.equal(r.status, 503, r.text);
    t.equal(r.json.error, 'temporarily_unavailable');
  }
  const jwks = await (await import('../fixtures/keymanager-harness.js')).request(`${k.base}/oauth2/jwks`);
  t.equal(jwks.status, 200, 'routes that need no store still answer');
});
