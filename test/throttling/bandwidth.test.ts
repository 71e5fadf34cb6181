import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { API_DIR, POLICY_DIR, inOneWindow, throttledApi } from './fixtures.js';

t.test('a bandwidth quota counts request and response bytes; once spent, calls are throttled', async (t) => {
  const big = Buffer.alloc(3000, 'x');
  const be = await echoBackend(t, (req, res) => {
    if (req.url?.endsWith('/big')) { res.writeHead(200, { 'content-type': 'text/plain', 'content-length': big.length }); res.end(big); return true; }
    return false;
  });
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/bw.toml`]: `[[advanced]]
name = "FourKB"
bandwidth = 4
bandwidth_unit = "KB"
unit_time = 1
time_unit = "min"
`,
    [`${API_DIR}/bw.toml`]: throttledApi({ name: 'Bw', context: '/bw', backend: be.url, policy: 'FourKB', resources: [{ verb: 'GET' }, { verb: 'POST' }] }),
  });
  await inOneWindow(60_000, 5000);
  t.equal((await request(s.url('/bw/1.0.0/big'))).status, 200, '3000 response bytes');
  t.equal((await request(s.url('/bw/1.0.0/small'), { method: 'POST', body: Buffer.alloc(900, 'y') })).status, 200, 'then 900 request bytes (and the echo)');
  const out = await request(s.url('/bw/1.0.0/small'));
  t.equal(out.status, 429, 'over 4096 bytes in the window');
  t.equal(faultOf(out)?.code, 900800);
  t.ok(out.headers['retry-after']);
});
