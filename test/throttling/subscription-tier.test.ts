/**
 * Subscription tiers need the caller: these tests get real tokens from the node's key manager and pass
 * once the security phases (authenticate, authorize) fill ctx.auth.
 */
import t from 'tap';
import { faultOf } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';
import { inOneWindow, policy, securedGateway, statuses } from './fixtures.js';

t.test('a 5 per minute subscription tier: 5 pass, then 900804 with 429 and Retry-After', async (t) => {
  const g = await securedGateway(t, { subPolicy: 'Acme5PerMin', policies: policy('subscription', 'Acme5PerMin', 5, 'min', 'stop_on_quota_reach = true') });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const rs = [];
  for (let i = 0; i < 7; i++) rs.push(await g.call(at));
  t.equal(statuses(rs), '200,200,200,200,200,429,429');
  const out = rs[6]!;
  t.equal(faultOf(out)?.code, 900804);
  t.equal(faultOf(out)?.message, 'Subscription level throttled out');
  t.ok(Number(out.headers['retry-after']) >= 1);
  t.equal(rs[0]!.headers['x-ratelimit-limit'], '5');
  t.equal(rs[0]!.headers['x-ratelimit-remaining'], '4');
  // Another application subscribed with the same tier has its own count.
  const other = await g.token('other-client', 'other-secret');
  t.equal((await g.call(other)).status, 200, 'the count is per application and API');
});

t.test('stop_on_quota_reach = false: calls over the quota pass, and the quota is logged as reached', async (t) => {
  const g = await securedGateway(t, { subPolicy: 'Soft2', policies: policy('subscription', 'Soft2', 2, 'min', 'stop_on_quota_reach = false') });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const rs = [];
  for (let i = 0; i < 4; i++) rs.push(await g.call(at));
  t.equal(statuses(rs), '200,200,200,200', 'nothing is refused');
  t.equal(rs[3]!.headers['x-ratelimit-remaining'], '0', 'the headers still tell the quota is spent');
  await eventually(() => g.s.home.logs().some((l) => /quota reached; calls continue/.test(String(l['msg']))), 'the log line');
});

t.test('enable_unlimited_tier = false: an "Unlimited" subscription gets the most restrictive tier, logged', async (t) => {
  const g = await securedGateway(t, {
    subPolicy: 'Unlimited', conf: { apim: { throttling: { enable_unlimited_tier: false } } },
    policies: policy('subscription', 'Tiny2', 2, 'min'),
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const rs = [];
  for (let i = 0; i < 3; i++) rs.push(await g.call(at));
  t.equal(statuses(rs), '200,200,429', 'Tiny2 applies: 2 per minute is the most restrictive subscription tier');
  t.equal(faultOf(rs[2]!)?.code, 900804);
  t.ok(await eventually(() => g.s.home.logs().some((l) => /"Unlimited" is not deployed \(apim.throttling.enable_unlimited_tier is false\)/.test(String(l['msg']))), 'the log line', 5000));
});
