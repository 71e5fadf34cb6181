import t from 'tap';
import { pino } from 'pino';
import { loadConfig } from '../../conf/loader.js';
import { LocalEventBus } from '../../engine/events/event-bus.js';
import { startGateway } from '../../engine/runtime/gateway-role.js';
import { ThrottlingExtension } from '../../engine/throttling/extension.js';
import { makeHome } from '../helpers/home.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, throttledApi } from './fixtures.js';

t.test('policies from the store (the admin API\'s door) reach every io thread; the files win a name clash', async (t) => {
  const be = await echoBackend(t);
  const home = await makeHome({ passthru_http: { io_threads_per_reactor: 2 } }, {
    [`${POLICY_DIR}/f.toml`]: policy('advanced', 'FromFile', 2),
    [`${API_DIR}/s.toml`]: throttledApi({ name: 'S', context: '/s', backend: be.url, policy: 'FromStore' }),
    [`${API_DIR}/f.toml`]: throttledApi({ name: 'F', context: '/f', backend: be.url, policy: 'FromFile' }),
  });
  const config = loadConfig(home.dir);
  const log = pino({ level: 'silent' });
  const ext = new ThrottlingExtension(config, log, new LocalEventBus());
  const gw = await startGateway(config, log, null, [ext]);
  t.teardown(async () => { await gw.stop(); home.cleanup(); });
  const url = (p: string) => `http://127.0.0.1:${gw.ports.http}${p}`;
  await inOneWindow(60_000, 5000);

  t.notOk(ext.policies.policies.some((p) => p.name === 'FromStore'), 'not deployed yet');
  await ext.setPolicies('store', {
    policies: [{ level: 'advanced', name: 'FromStore', quota: { requests: 1, unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: 'store' },
      { level: 'advanced', name: 'FromFile', quota: { requests: 99, unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: 'store' }],
    blockConditions: [{ type: 'API', value: '/blocked', enabled: true }],
  });
  const rs = await Promise.all([0, 1, 2, 3].map(() => request(url('/s/1.0.0/y'))));
  t.equal(rs.filter((r) => r.status === 200).length, 1, 'FromStore: 1 per minute on both io threads, as soon as setPolicies resolves');
  t.equal(faultOf(rs.find((r) => r.status === 429)!)?.code, 900800);
  t.equal((await request(url('/f/1.0.0/x'))).headers['x-ratelimit-limit'], '2', 'the file\'s FromFile wins');
  t.equal(ext.policies.blockConditions.length, 1, 'block conditions from the store too');

  await ext.setPolicies('store', null);
  t.notOk(ext.policies.policies.some((p) => p.name === 'FromStore'), 'removed');
  t.equal((await request(url('/s/1.0.0/z'))).headers['x-ratelimit-limit'], '2', 'an unknown name again: the most restrictive advanced policy (FromFile)');
});
