/** Conditions and block conditions on the caller (need the security phases for ctx.auth). */
import t from 'tap';
import { faultOf } from '../helpers/backends.js';
import { inOneWindow, securedGateway, statuses } from './fixtures.js';

t.test('a JWT claim condition (enable_jwt_claim_based_throttling) selects its group', async (t) => {
  const g = await securedGateway(t, {
    apiPolicy: 'ByClaim',
    conf: { apim: { throttling: { enable_jwt_claim_based_throttling: true } } },
    policies: `[[advanced]]
name = "ByClaim"
requests = 100
[[advanced.condition_group]]
requests = 1
conditions = [ { type = "jwt_claim", name = "client_id", value = "acme-.*" } ]
`,
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const rs = [await g.call(at), await g.call(at)];
  t.equal(statuses(rs), '200,429');
  t.equal(faultOf(rs[1]!)?.code, 900800);
  const other = await g.token('other-client', 'other-secret');
  t.equal((await g.call(other)).headers['x-ratelimit-limit'], '100', 'another client id: the default quota');
});

t.test('USER and APPLICATION block conditions: 900805', async (t) => {
  const g = await securedGateway(t, {
    policies: `[[block_condition]]
type = "USER"
value = "bob"
[[block_condition]]
type = "APPLICATION"
value = "admin:AcmeApp"
`,
  });
  const at = await g.token();
  const app = await g.call(at);
  t.equal(faultOf(app)?.code, 900805, 'AcmeApp of admin is blocked');
  const bob = await g.token('other-client', 'other-secret');
  t.equal(faultOf(await g.call(bob))?.code, 900805, 'bob is blocked');
});
