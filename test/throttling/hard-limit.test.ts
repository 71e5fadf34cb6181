import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { API_DIR, inOneWindow, statuses, throttledApi } from './fixtures.js';

t.test('backend_max_tps: calls over the hard limit within a second get 900801 with 503 and Retry-After', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${API_DIR}/hard.toml`]: throttledApi({ name: 'Hard', context: '/hard', backend: be.url, extra: 'backend_max_tps = 3' }),
  });
  await inOneWindow(1000, 700);
  const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => request(s.url(`/hard/1.0.0/${i}`))));
  const ok = rs.filter((r) => r.status === 200).length;
  t.equal(ok, 3, `3 of 6 pass in one second (${statuses(rs)})`);
  const out = rs.find((r) => r.status !== 200)!;
  t.equal(out.status, 503);
  t.equal(faultOf(out)?.code, 900801);
  t.equal(faultOf(out)?.message, 'Hard limit exceeded');
  t.equal(out.headers['retry-after'], '1', 'the next second frees the backend');
  t.equal(be.seen.length, 3);
  // The next second has room again.
  await inOneWindow(1000, 1000);
  t.equal((await request(s.url('/hard/1.0.0/again'))).status, 200);
});
