import t from 'tap';
import { requireBuild } from '../fixtures/sluice-process.js';
import { request as kmRequest, basic } from '../fixtures/keymanager-harness.js';
import { eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { ADMIN, adminClient, tokenRequest } from './helpers/node.js';
import { redisEventsCluster } from './helpers/cluster.js';

requireBuild();

// The trial: with Redis events and Redis down, a revocation reached the gateway-workers only at the
// next safety poll (6.4-29.9 s; about 75,000 calls with the revoked token accepted per gateway): the Redis
// or long-poll choice was made once, at start. The safety poll is a minute here, so only the fallback to the
// long poll can bring the revocation within the test's bound.
t.test('Redis down: a gateway-worker follows the control plane by long poll, says so, and revocations still arrive at once', async (t) => {
  const backend = await echoBackend(t);
  const { redis, cp, gw } = await redisEventsCluster(t);
  const admin = adminClient(cp.https);
  t.equal((await admin.post(`${ADMIN}/apis`, {
    name: 'Guarded', context: '/guarded', version: '1.0.0', lifecycle_state: 'PUBLISHED', endpoints: { production: backend.url },
    resources: [{ verb: 'GET', uri_template: '/*', auth_type: 'Application & Application User' }],
  })).status, 201);
  const app = await admin.post(`${ADMIN}/applications`, { name: 'GuardApp', keys: [{ key_type: 'PRODUCTION', grant_types: ['client_credentials'] }], subscriptions: [{ api: 'Guarded:1.0.0', throttling_policy: 'Unlimited' }] });
  t.equal(app.status, 201);
  const key = app.json.keys[0] as { client_id: string; client_secret: string };
  const tokens = await Promise.all([1, 2].map(() => tokenRequest(cp.https, key.client_id, key.client_secret)));
  const call = (tok: string) => request(`${gw.gw}/guarded/1.0.0/x`, { headers: { authorization: `Bearer ${tok}` } });
  for (const tok of tokens) await eventually(async () => (await call(tok.json.access_token)).status === 200, 'a call with the token through the worker', 10000);
  const health = async (): Promise<Record<string, unknown> | undefined> => {
    const r = await kmRequest(`${gw.https}/api/health-check/v1.0/health`);
    return (r.json?.checkers as { name: string; details: Record<string, unknown> }[] | undefined)?.find((c) => c.name === 'event_sync_health_checker')?.details;
  };
  t.match(await health(), { mode: 'redis', redis: 'UP' }, 'the health check says the worker follows Redis');
  const revoke = (tok: string) => kmRequest(`${cp.https}/oauth2/revoke`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(key.client_id, key.client_secret) },
    body: new URLSearchParams({ token: tok }).toString(),
  });

  redis.stop();
  await eventually(() => gw.home.logs().some((l) => /Redis event subscription is down: following the control plane by long poll/.test(String(l['msg']))), 'the worker to say it long-polls', 10000);
  t.match(await health(), { mode: 'long-poll', redis: 'DOWN' }, 'the health check says so too');
  t.equal((await revoke(tokens[0]!.json.access_token)).status, 200);
  await eventually(async () => faultOf(await call(tokens[0]!.json.access_token))?.code === 900901, 'the revocation on the worker with Redis down (the safety poll is 60 s away)', 10000);
  t.pass('revoked on the worker while Redis is down');

  await redis.start();
  await eventually(async () => (await health())?.['mode'] === 'redis', 'the worker to follow Redis again', 15000);
  await eventually(() => gw.home.logs().some((l) => /Redis event subscription is up: following the control plane by its announcements again/.test(String(l['msg']))), 'the worker to say so', 5000);
  t.notOk(gw.home.logs().some((l) => /not up yet/.test(String(l['msg']))), 'with Redis up at start, nothing was said about it then');
  t.match(await health(), { mode: 'redis', redis: 'UP' }, 'and the health check says so');
  t.equal((await revoke(tokens[1]!.json.access_token)).status, 200);
  await eventually(async () => faultOf(await call(tokens[1]!.json.access_token))?.code === 900901, 'the revocation on the worker by Redis again', 10000);
  t.pass('revoked on the worker through Redis again');
});
