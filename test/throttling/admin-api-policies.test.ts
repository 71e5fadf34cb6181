import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { ADMIN, adminClient } from '../operations/helpers/node.js';

t.test('policies and block conditions written through the admin API are enforced at once', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${API_DIR}/metered.toml`]: apiToml({ name: 'Metered', context: '/metered', production: be.url }).replace('throttling_policy = "Unlimited"\n', 'throttling_policy = "AcmeAdmin3PerMin"\n'),
  });
  const admin = adminClient(`https://127.0.0.1:${s.home.ports.servletHttps}`);
  const created = await admin.post(`${ADMIN}/throttling/policies/advanced`, { name: 'AcmeAdmin3PerMin', requests: 3, unit_time: 1, time_unit: 'min' });
  t.equal(created.status, 201, created.text);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await request(s.url('/metered/1.0.0/x'))).status);
  t.same(statuses, [200, 200, 200, 429, 429], 'the new advanced policy holds the API to 3 a minute');

  const block = await admin.post(`${ADMIN}/throttling/block-conditions`, { type: 'API', value: '/metered/1.0.0', enabled: true });
  t.equal(block.status, 201, block.text);
  await eventually(async () => faultOf(await request(s.url('/metered/1.0.0/x')))?.code === 900805, 'the block condition');
  t.pass('blocked by API context');
});
