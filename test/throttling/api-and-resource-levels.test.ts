import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, statuses, throttledApi } from './fixtures.js';

t.test('API-level policy: the limit passes exactly, then 900800 with 429, Retry-After and rate-limit headers', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/test.toml`]: policy('advanced', 'Api3PerMin', 3),
    [`${API_DIR}/lim.toml`]: throttledApi({ name: 'Lim', context: '/lim', backend: be.url, policy: 'Api3PerMin' }),
  });
  await inOneWindow(60_000, 5000);
  const rs = [];
  for (let i = 0; i < 5; i++) rs.push(await request(s.url(`/lim/1.0.0/x${i}`)));
  t.equal(statuses(rs), '200,200,200,429,429', 'three pass, then throttled');
  t.equal(rs[0]!.headers['x-ratelimit-limit'], '3');
  t.equal(rs[0]!.headers['x-ratelimit-remaining'], '2');
  t.equal(rs[2]!.headers['x-ratelimit-remaining'], '0');
  const reset = Number(rs[0]!.headers['x-ratelimit-reset']);
  t.ok(reset >= 1 && reset <= 60, `X-RateLimit-Reset ${reset} is the seconds left in the minute`);
  const out = rs[3]!;
  t.equal(faultOf(out)?.code, 900800);
  t.equal(faultOf(out)?.message, 'Message throttled out');
  t.match(faultOf(out)?.description, /exceeded your quota/);
  const retry = Number(out.headers['retry-after']);
  t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  t.equal(out.headers['x-ratelimit-remaining'], '0');
  t.equal(out.headers['x-ratelimit-limit'], '3');
  t.match(out.headers['content-type'], /application\/json/, 'rendered by _throttle_out_handler_');
  t.equal(be.seen.length, 3, 'throttled calls never reach the backend');
});

t.test('resource-level policy: 900802 on that resource only; other resources are not counted by it', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/test.toml`]: policy('advanced', 'Res2PerMin', 2),
    [`${API_DIR}/res.toml`]: throttledApi({
      name: 'Res', context: '/res', backend: be.url,
      resources: [{ template: '/slow', policy: 'Res2PerMin' }, { template: '/*' }],
    }),
  });
  await inOneWindow(60_000, 5000);
  const slow = [];
  for (let i = 0; i < 3; i++) slow.push(await request(s.url('/res/1.0.0/slow')));
  t.equal(statuses(slow), '200,200,429');
  t.equal(faultOf(slow[2]!)?.code, 900802);
  t.equal(faultOf(slow[2]!)?.message, 'Resource level throttle out');
  t.ok(slow[2]!.headers['retry-after']);
  for (let i = 0; i < 5; i++) t.equal((await request(s.url('/res/1.0.0/other'))).status, 200, 'another resource is not limited');
  t.notOk((await request(s.url('/res/1.0.0/other'))).headers['x-ratelimit-limit'], 'no rate-limit headers where nothing limits');
});

t.test('an API policy and a resource policy both count; the tighter one answers', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/test.toml`]: policy('advanced', 'Api4PerMin', 4) + policy('advanced', 'Res2PerMin', 2),
    [`${API_DIR}/both.toml`]: throttledApi({
      name: 'Both', context: '/both', backend: be.url, policy: 'Api4PerMin',
      resources: [{ template: '/a', policy: 'Res2PerMin' }, { template: '/*' }],
    }),
  });
  await inOneWindow(60_000, 5000);
  const a1 = await request(s.url('/both/1.0.0/a'));
  t.equal(a1.headers['x-ratelimit-limit'], '2', 'headers report the tightest level');
  t.equal(a1.headers['x-ratelimit-remaining'], '1');
  t.equal((await request(s.url('/both/1.0.0/a'))).status, 200);
  const a3 = await request(s.url('/both/1.0.0/a'));
  t.equal(faultOf(a3)?.code, 900802, 'the resource limit first');
  // The refused call gave back what the API level had counted: 2 left at API level.
  t.equal((await request(s.url('/both/1.0.0/b'))).status, 200);
  t.equal((await request(s.url('/both/1.0.0/b'))).status, 200);
  const b3 = await request(s.url('/both/1.0.0/b'));
  t.equal(faultOf(b3)?.code, 900800, 'then the API limit');
});
