/** Application tiers (needs the security phases for ctx.auth). */
import t from 'tap';
import { faultOf } from '../helpers/backends.js';
import { API_DIR, inOneWindow, policy, securedGateway, statuses, throttledApi } from './fixtures.js';

t.test('an application tier counts the application\'s calls to all its APIs: 900803', async (t) => {
  const g = await securedGateway(t, {
    appPolicy: 'App3PerMin', policies: policy('application', 'App3PerMin', 3),
    files: {
      [`${API_DIR}/second.toml`]: throttledApi({ name: 'Second', context: '/second', backend: 'http://127.0.0.1:9', resources: [{ auth: 'Application & Application User' }] }),
    },
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const rs = [];
  for (let i = 0; i < 4; i++) rs.push(await g.call(at));
  t.equal(statuses(rs), '200,200,200,429');
  t.equal(faultOf(rs[3]!)?.code, 900803);
  t.equal(faultOf(rs[3]!)?.message, 'Application level throttle out');
  t.ok(rs[3]!.headers['retry-after']);
  const other = await g.token('other-client', 'other-secret');
  t.equal((await g.call(other)).status, 200, 'another application has its own count');
});
