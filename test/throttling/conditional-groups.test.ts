import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';
import { API_DIR, POLICY_DIR, inOneWindow, statuses, throttledApi } from './fixtures.js';

const CONDITIONAL = `[[advanced]]
name = "Cond"
requests = 100
unit_time = 1
time_unit = "min"

[[advanced.condition_group]]
description = "free tier header"
requests = 2
unit_time = 1
time_unit = "min"
conditions = [ { type = "header", name = "X-Tier", value = "free" } ]

[[advanced.condition_group]]
description = "trial plans in the query"
requests = 1
unit_time = 1
time_unit = "min"
conditions = [ { type = "query", name = "plan", value = "trial|demo" } ]

[[advanced.condition_group]]
description = "a partner network, except its monitoring probe"
requests = 3
unit_time = 1
time_unit = "min"
conditions = [ { type = "ip_range", value = "198.51.100.0/24" }, { type = "header", name = "X-Probe", value = "yes", invert = true } ]
`;

async function gateway(t: Tap, conf: Record<string, unknown>) {
  const be = await echoBackend(t);
  return startSluice(t, conf, {
    [`${POLICY_DIR}/cond.toml`]: CONDITIONAL,
    [`${API_DIR}/cond.toml`]: throttledApi({ name: 'Cond', context: '/cond', backend: be.url, policy: 'Cond' }),
  });
}
type Tap = Parameters<Parameters<typeof t.test>[1]>[0];

const ALL_ON = { apim: { throttling: { enable_header_based_throttling: true, enable_query_param_based_throttling: true, trusted_proxies: ['127.0.0.1'] } } };

t.test('a matching header, query parameter or address range selects its group\'s quota; the rest get the default', async (t) => {
  const s = await gateway(t, ALL_ON);
  await inOneWindow(60_000, 8000);
  const free = [];
  for (let i = 0; i < 3; i++) free.push(await request(s.url('/cond/1.0.0/x'), { headers: { 'x-tier': 'free' } }));
  t.equal(statuses(free), '200,200,429', 'the header group: 2 per minute');
  t.equal(free[0]!.headers['x-ratelimit-limit'], '2');
  t.equal(faultOf(free[2]!)?.code, 900800, 'an API-level policy\'s group answers as the API level');
  t.equal((await request(s.url('/cond/1.0.0/x'), { headers: { 'x-tier': 'FREE' } })).headers['x-ratelimit-limit'], '100', 'values are matched exactly (case too)');

  const trial = [await request(s.url('/cond/1.0.0/x?plan=trial')), await request(s.url('/cond/1.0.0/x?a=1&plan=demo'))];
  t.equal(statuses(trial), '200,429', 'the query group: 1 per minute, its own counter');
  t.equal((await request(s.url('/cond/1.0.0/x?plan=gold'))).status, 200);

  const partner = [];
  for (let i = 0; i < 4; i++) partner.push(await request(s.url('/cond/1.0.0/x'), { headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } }));
  t.equal(statuses(partner), '200,200,200,429', 'the address range group (one counter for the group)');
  t.equal((await request(s.url('/cond/1.0.0/x'), { headers: { 'x-forwarded-for': '198.51.100.9', 'x-probe': 'yes' } })).headers['x-ratelimit-limit'], '100',
    'an inverted condition: the probe is not in the group');

  const plain = await request(s.url('/cond/1.0.0/x'));
  t.equal(plain.status, 200);
  t.equal(plain.headers['x-ratelimit-limit'], '100', 'no group matches: the policy\'s own quota');
});

t.test('groups whose condition type is switched off are ignored, and the log says so', async (t) => {
  const s = await gateway(t, { apim: { throttling: { trusted_proxies: ['127.0.0.1'] } } });
  await inOneWindow(60_000, 5000);
  for (let i = 0; i < 4; i++) {
    const r = await request(s.url('/cond/1.0.0/x?plan=trial'), { headers: { 'x-tier': 'free' } });
    t.equal(r.status, 200);
    t.equal(r.headers['x-ratelimit-limit'], '100');
  }
  await eventually(() => s.home.logs().some((l) => /enable_header_based_throttling is false: the group is ignored/.test(String(l['msg']))), 'the header warning');
  t.ok(await eventually(() => s.home.logs().some((l) => /enable_query_param_based_throttling is false/.test(String(l['msg']))), 'and the query warning', 5000), 'and the query warning');
  const partner = await request(s.url('/cond/1.0.0/x'), { headers: { 'x-forwarded-for': '198.51.100.1' } });
  t.equal(partner.headers['x-ratelimit-limit'], '100', 'a group mixing an address and a header condition is off with the header switch');
});

t.test('address conditions need no switch', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/ip.toml`]: `[[advanced]]
name = "ByAddress"
requests = 100
[[advanced.condition_group]]
requests = 2
conditions = [ { type = "ip", value = "127.0.0.1" } ]
`,
    [`${API_DIR}/ip.toml`]: throttledApi({ name: 'Ip', context: '/ip', backend: be.url, resources: [{ policy: 'ByAddress' }] }),
  });
  await inOneWindow(60_000, 5000);
  const rs = [];
  for (let i = 0; i < 3; i++) rs.push(await request(s.url('/ip/1.0.0/x')));
  t.equal(statuses(rs), '200,200,429');
  t.equal(faultOf(rs[2]!)?.code, 900802, 'a resource-level policy\'s group answers as the resource level');
});
