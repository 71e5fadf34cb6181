import t from 'tap';
import { requireBuild } from '../fixtures/sluice-process.js';
import { eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';
import { ADMIN, adminClient, apiBody } from './helpers/node.js';
import { redisEventsCluster } from './helpers/cluster.js';

requireBuild();

t.test('[apim.redis_config] enabled: control plane events reach a worker by Redis pub/sub, without waiting for a poll', async (t) => {
  const backend = await echoBackend(t);
  // The safety poll is a minute away: only Redis can bring the change sooner.
  const { cp, gw } = await redisEventsCluster(t);
  const admin = adminClient(cp.https);
  await new Promise((r) => setTimeout(r, 500));
  const t0 = Date.now();
  t.equal((await admin.post(`${ADMIN}/apis`, apiBody('ViaRedis', '/viaredis', backend.url, { lifecycle_state: 'PUBLISHED' }))).status, 201);
  await eventually(async () => (await request(`${gw.gw}/viaredis/1.0.0/x`)).status === 200, 'the API on the worker', 5000);
  const took = Date.now() - t0;
  t.ok(took < 2000, `served ${took} ms after the write`);
  t.equal((await admin.post(`${ADMIN}/apis/ViaRedis:1.0.0/lifecycle`, { action: 'block' })).status, 200);
  await eventually(async () => (await request(`${gw.gw}/viaredis/1.0.0/x`)).status === 503, 'the block on the worker', 3000);
  t.pass('the block arrived through Redis too');
});
