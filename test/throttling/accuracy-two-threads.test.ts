import t from 'tap';
import http from 'node:http';
import type net from 'node:net';
import autocannon from 'autocannon';
import { startSluice } from '../helpers/sluice.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, throttledApi } from './fixtures.js';

t.test('two io threads share one counter: a burst of concurrent calls passes exactly the limit', async (t) => {
  let backendCalls = 0;
  const be = http.createServer((req, res) => { backendCalls++; res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
  be.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => be.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { be.closeAllConnections(); be.close(() => r()); }));
  const port = (be.address() as net.AddressInfo).port;

  const LIMIT = 4000;
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, {
    [`${POLICY_DIR}/acc.toml`]: policy('advanced', 'Acc', LIMIT),
    [`${API_DIR}/acc.toml`]: throttledApi({ name: 'Acc', context: '/acc', backend: `http://127.0.0.1:${port}`, policy: 'Acc' }),
  });
  await inOneWindow(60_000, 10_000);
  const result = await autocannon({ url: s.url('/acc/1.0.0/x'), connections: 64, pipelining: 1, amount: LIMIT * 3, timeout: 10 });
  const passed = result.statusCodeStats['200']?.count ?? 0;
  const throttled = result.statusCodeStats['429']?.count ?? 0;
  const seconds = result.duration;
  t.comment(`${result.requests.total} calls in ${seconds.toFixed(2)} s (${Math.round(result.requests.total / seconds)} calls/s): ${passed} passed, ${throttled} throttled`);
  t.equal(passed + throttled, LIMIT * 3, 'every call answered 200 or 429');
  t.ok(Math.abs(passed - LIMIT) <= LIMIT * 0.01, `passed ${passed} is within 1% of ${LIMIT}`);
  t.equal(passed, LIMIT, 'and in fact exact: both threads went on receiving calls, so no lease of calls (10 at this limit, level-counter.ts) was left unused');
  t.equal(backendCalls, passed, 'the backend saw the passed calls only');
});
