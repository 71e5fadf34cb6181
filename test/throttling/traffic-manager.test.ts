import t from 'tap';
import http from 'node:http';
import { makeHome, eventually, freePort } from '../helpers/home.js';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request } from '../helpers/backends.js';
import { requireBuild, startSluice as startProcess, waitPort } from '../fixtures/sluice-process.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, startRedis, throttledApi } from './fixtures.js';

function getJson(port: number, path: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) as Record<string, unknown> }));
    }).on('error', reject);
  });
}

t.test('server_role = traffic-manager runs as its own process: status, live gateways and their decisions', async (t) => {
  requireBuild();
  const redis = await startRedis(t);
  const prefix = `sluice-tm-${process.pid}:`;
  const redisConf = { enable: true, url: redis.url, sync_interval: 50, key_prefix: prefix };
  const tmPort = await freePort();
  const tmHome = await makeHome({
    server: { server_role: 'traffic-manager' },
    apim: { redis_config: redisConf, throttling: { event_management: { hostName: '127.0.0.1', port: tmPort } } },
  }, { [`${POLICY_DIR}/extra.toml`]: policy('advanced', 'OnePerMin', 1) });
  t.teardown(() => tmHome.cleanup());
  const tm = startProcess(t, tmHome.dir);
  await waitPort(tmPort, 40_000).catch((err: Error) => { throw new Error(`${err.message}\n${tm.output()}`); });

  t.same((await getJson(tmPort, '/health')).json, { status: 'ok' });
  const first = await eventually(async () => {
    const s = await getJson(tmPort, '/throttle/status');
    return s.json['redis'] === 'up' ? s : null;
  }, 'the traffic manager on Redis');
  t.equal(first.json['role'], 'traffic-manager');
  t.equal(first.json['topic'], 'throttleData');
  const names = first.json['policies'] as Record<string, string[]>;
  t.ok(names['subscription']!.includes('Gold') && names['advanced']!.includes('OnePerMin'), 'it loaded the policy files');
  t.notOk(tmHome.logs().some((l) => /gateway listening|key manager listening/.test(String(l['msg']))), 'no gateway or key manager in this process');

  // A gateway on the same Redis: it shows up as a live node, and its decisions reach the traffic manager.
  const be = await echoBackend(t);
  const gw = await startSluice(t, { apim: { redis_config: redisConf } }, {
    [`${POLICY_DIR}/extra.toml`]: policy('advanced', 'OnePerMin', 1),
    [`${API_DIR}/tm.toml`]: throttledApi({ name: 'Tm', context: '/tm', backend: be.url, policy: 'OnePerMin' }),
  });
  await eventually(async () => ((await getJson(tmPort, '/throttle/status')).json['nodes'] as unknown[]).length === 1, 'the gateway node', 10_000);
  await eventually(() => gw.home.logs().some((l) => /Redis connected/.test(String(l['msg']))), 'the gateway on Redis');
  await inOneWindow(60_000, 5000);
  t.equal((await request(gw.url('/tm/1.0.0/a'))).status, 200);
  t.equal((await request(gw.url('/tm/1.0.0/b'))).status, 429);
  const d = await eventually(async () => {
    const r = await getJson(tmPort, '/throttle/decisions');
    return (r.json['decisions'] as Record<string, unknown>[]).find((e) => e['api'] === 'Tm:1.0.0');
  }, 'the decision at the traffic manager');
  t.equal(d['code'], 900800);
  t.equal(d['policy'], 'OnePerMin');
  t.ok(Number(d['until']) > Date.now(), 'in force until its window ends');
  t.equal((await getJson(tmPort, '/nowhere')).status, 404);
});

t.test('a traffic manager without Redis still starts and says it has nothing to share', async (t) => {
  requireBuild();
  const tmPort = await freePort();
  const home = await makeHome({ server: { server_role: 'traffic-manager' }, apim: { throttling: { event_management: { hostName: '127.0.0.1', port: tmPort } } } });
  t.teardown(() => home.cleanup());
  const tm = startProcess(t, home.dir);
  await waitPort(tmPort, 40_000).catch((err: Error) => { throw new Error(`${err.message}\n${tm.output()}`); });
  t.equal((await getJson(tmPort, '/throttle/status')).json['redis'], 'disabled');
  await eventually(() => home.logs().some((l) => /without \[apim.redis_config\] enable = true/.test(String(l['msg']))), 'the warning');
  tm.child.kill('SIGTERM');
  t.equal((await tm.exited).code, 0, 'SIGTERM stops it cleanly');
});
