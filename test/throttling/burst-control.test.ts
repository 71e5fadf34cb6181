/** Burst control of a subscription tier (needs the security phases for ctx.auth). */
import t from 'tap';
import { faultOf } from '../helpers/backends.js';
import { inOneWindow, nextWindow, securedGateway } from './fixtures.js';

t.test('burst control: more than 2 calls in one second get 900807; the next second has room again', async (t) => {
  const g = await securedGateway(t, {
    subPolicy: 'Bursty',
    policies: `[[subscription]]
name = "Bursty"
requests = 100
unit_time = 1
time_unit = "min"
burst = { requests = 2, time_unit = "sec" }
`,
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  await inOneWindow(1000, 600);
  const rs = await Promise.all([g.call(at), g.call(at), g.call(at), g.call(at)]);
  t.equal(rs.filter((r) => r.status === 200).length, 2, 'two per second');
  const out = rs.find((r) => r.status === 429)!;
  t.equal(faultOf(out)?.code, 900807);
  t.equal(faultOf(out)?.message, 'Message throttled out');
  t.equal(out.headers['retry-after'], '1');
  await nextWindow(1000);
  t.equal((await g.call(at)).status, 200, 'a new second');
  // The refused calls were not counted against the minute's quota: 3 of 100 used.
  t.equal((await g.call(at)).headers['x-ratelimit-limit'], '2', 'the tightest level is the burst');
});
