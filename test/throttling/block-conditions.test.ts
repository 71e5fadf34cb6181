import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';
import { API_DIR, POLICY_DIR, throttledApi } from './fixtures.js';

const block = (type: string, value: string, extra = ''): string => `[[block_condition]]
type = "${type}"
value = "${value}"
enabled = true
${extra}
`;

async function gateway(t: Tap, conf: Record<string, unknown>, blocks: string) {
  const be = await echoBackend(t);
  return startSluice(t, conf, {
    [`${POLICY_DIR}/blocks.toml`]: blocks,
    [`${API_DIR}/open.toml`]: throttledApi({ name: 'Open', context: '/open', backend: be.url }),
    [`${API_DIR}/shut.toml`]: throttledApi({ name: 'Shut', context: '/shut', backend: be.url }),
  });
}
type Tap = Parameters<Parameters<typeof t.test>[1]>[0];

t.test('an IP block condition answers 900805 with 429 through _throttle_out_handler_, without Retry-After', async (t) => {
  const s = await gateway(t, {}, block('IP', '127.0.0.1'));
  const r = await request(s.url('/open/1.0.0/x'));
  t.equal(r.status, 429);
  t.equal(faultOf(r)?.code, 900805);
  t.equal(faultOf(r)?.message, 'Message blocked');
  t.notOk(r.headers['retry-after'], 'a block has no window to wait for');
});

t.test('IP_RANGE as a CIDR and as an a-b range, API contexts, invert, disabled conditions: each hot-deployed in turn', async (t) => {
  const s = await gateway(t, {}, block('IP_RANGE', '127.0.0.0/8'));
  const code = async (path = '/open/1.0.0/x') => faultOf(await request(s.url(path)))?.code ?? 200;
  const deploy = async (blocks: string, path: string, want: number, what: string) => {
    s.home.write(`${POLICY_DIR}/blocks.toml`, blocks);
    await eventually(async () => (await code(path)) === want, what);
  };
  t.equal(await code(), 900805, 'a CIDR');
  await deploy(block('IP_RANGE', '127.0.0.1-127.0.0.9'), '/open/1.0.0/x', 900805, 'an a-b range');
  t.pass('an a-b range');
  await deploy(block('IP_RANGE', '127.0.0.2-127.0.0.9') + block('IP_RANGE', '10.0.0.0/8') + block('IP', '::1'), '/open/1.0.0/x', 200, 'addresses outside');
  t.pass('an address outside every range passes');

  await deploy(block('API', '/shut'), '/shut/1.0.0/x', 900805, 'an API context');
  t.equal(await code('/open/1.0.0/x'), 200, 'another API passes');
  await deploy(block('API', '/shut/1.0.0'), '/shut/1.0.0/y', 900805, 'an API context with its version');
  t.equal(await code('/open/1.0.0/x'), 200);

  await deploy(block('IP_RANGE', '10.0.0.0/8', 'invert = true'), '/open/1.0.0/x', 900805, 'invert: loopback is outside 10/8');
  t.pass('invert = true blocks every address outside the range');
  await deploy(block('IP_RANGE', '127.0.0.0/8', 'invert = true'), '/open/1.0.0/x', 200, 'invert: loopback inside');
  t.pass('and lets the range through');

  await deploy(block('IP', '127.0.0.1').replace('enabled = true', 'enabled = false'), '/open/1.0.0/x', 200, 'a disabled condition');
  t.pass('enabled = false blocks nothing');
});

t.test('enable_blacklist_condition = false: no block condition applies', async (t) => {
  const globalOff = await gateway(t, { apim: { throttling: { enable_blacklist_condition: false } } }, block('IP', '127.0.0.1'));
  t.equal((await request(globalOff.url('/open/1.0.0/x'))).status, 200);
});

t.test('X-Forwarded-For: ignored from an untrusted peer; from a trusted proxy the right-most untrusted entry counts', async (t) => {
  const blocks = block('IP', '192.0.2.7') + block('IP_RANGE', '2001:db8::/32');
  const untrusted = await gateway(t, {}, blocks);
  t.equal((await request(untrusted.url('/open/1.0.0/x'), { headers: { 'x-forwarded-for': '192.0.2.7' } })).status, 200,
    'a client cannot make itself (or someone else) another address');

  const s = await gateway(t, { apim: { throttling: { trusted_proxies: ['127.0.0.1'] } } }, blocks);
  t.equal(faultOf(await request(s.url('/open/1.0.0/x'), { headers: { 'x-forwarded-for': '192.0.2.7' } }))?.code, 900805, 'the proxy says who the client is');
  t.equal((await request(s.url('/open/1.0.0/x'), { headers: { 'x-forwarded-for': '192.0.2.7, 198.51.100.1' } })).status, 200,
    'the left entry was written by the client: the proxy\'s entry (right) counts');
  t.equal(faultOf(await request(s.url('/open/1.0.0/x'), { headers: { 'x-forwarded-for': '2001:db8::42' } }))?.code, 900805, 'IPv6 ranges');
  t.equal(faultOf(await request(s.url('/open/1.0.0/x'), { headers: { 'x-forwarded-for': ['198.51.100.1', '192.0.2.7:5555'] } }))?.code, 900805,
    'several X-Forwarded-For headers are one list; a port is ignored');
  t.equal((await request(s.url('/open/1.0.0/x'))).status, 200, 'no X-Forwarded-For: the peer');

  const chain = await gateway(t, { apim: { throttling: { trusted_proxies: ['127.0.0.1', '198.51.100.0/24'] } } }, blocks);
  t.equal(faultOf(await request(chain.url('/open/1.0.0/x'), { headers: { 'x-forwarded-for': '192.0.2.7, 198.51.100.1' } }))?.code, 900805,
    'a chain of trusted proxies is walked back to the client');
});
