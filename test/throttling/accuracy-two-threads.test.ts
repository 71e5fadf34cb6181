import t from 'tap';
import autocannon from 'autocannon';
import { startSluice } from '../helpers/sluice.js';
import { recordingBackend } from '../helpers/recording-backend.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, throttledApi } from './fixtures.js';

t.test('two io threads share one counter: a burst of concurrent calls passes exactly the limit', async (t) => {
  const be = await recordingBackend(t);

  const LIMIT = 4000;
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, {
    [`${POLICY_DIR}/acc.toml`]: policy('advanced', 'Acc', LIMIT),
    [`${API_DIR}/acc.toml`]: throttledApi({ name: 'Acc', context: '/acc', backend: be.url, policy: 'Acc' }),
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
  t.equal(be.seen.length, passed, 'the backend saw the passed calls only');
});

t.test('two io threads under a limit large enough for leases of 64 calls: never over the limit, at most 0.5% under', async (t) => {
  const be = await recordingBackend(t);

  // 2 io threads x 200 calls x 64: the largest lease (level-counter.ts LEASE_PER_THREAD, LEASE_MAX).
  const LIMIT = 25_600;
  const OVER = 6_400;
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, {
    [`${POLICY_DIR}/big.toml`]: policy('advanced', 'Big', LIMIT),
    [`${API_DIR}/big.toml`]: throttledApi({ name: 'Big', context: '/big', backend: be.url, policy: 'Big' }),
  });
  await inOneWindow(60_000, 15_000);
  const result = await autocannon({ url: s.url('/big/1.0.0/x'), connections: 64, pipelining: 1, amount: LIMIT + OVER, timeout: 10 });
  const passed = result.statusCodeStats['200']?.count ?? 0;
  const throttled = result.statusCodeStats['429']?.count ?? 0;
  t.comment(`${result.requests.total} calls in ${result.duration.toFixed(2)} s: ${passed} passed, ${throttled} throttled`);
  t.equal(passed + throttled, LIMIT + OVER, 'every call answered 200 or 429');
  t.ok(passed <= LIMIT, `passed ${passed} is not over the limit ${LIMIT}`);
  t.ok(passed >= LIMIT - LIMIT / 200, `passed ${passed} is at most 0.5% under it: a lease not admitted is lost to the window, never more than 63 calls a thread`);
  t.equal(be.seen.length, passed, 'the backend saw the passed calls only');
});
