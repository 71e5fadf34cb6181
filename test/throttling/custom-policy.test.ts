/** Custom policies keyed on the caller (needs the security phases for ctx.auth). */
import t from 'tap';
import { faultOf, request } from '../helpers/backends.js';
import { API_DIR, inOneWindow, securedGateway, statuses, throttledApi } from './fixtures.js';

t.test('a custom policy keyed on $userId: 900806 once the user\'s calls reach it, whatever the application', async (t) => {
  const g = await securedGateway(t, {
    policies: `[[custom]]
name = "PerUser"
description = "each user: 3 calls a minute over all APIs"
key_template = "$userId"
requests = 3
unit_time = 1
time_unit = "min"
`,
    files: { [`${API_DIR}/open.toml`]: throttledApi({ name: 'Open', context: '/open', backend: 'http://127.0.0.1:9' }) },
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const rs = [];
  for (let i = 0; i < 4; i++) rs.push(await g.call(at));
  t.equal(statuses(rs), '200,200,200,429');
  t.equal(faultOf(rs[3]!)?.code, 900806);
  t.equal(faultOf(rs[3]!)?.message, 'Custom policy throttled out');
  const bob = await g.token('other-client', 'other-secret');
  t.equal((await g.call(bob)).status, 200, 'bob (the other application\'s owner) has his own count');
  t.not((await request(g.s.url('/open/1.0.0/x'))).status, 429, 'a call without a token is not counted by a $userId policy');
});
