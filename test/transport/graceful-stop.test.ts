import t from 'tap';
import http from 'node:http';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';

t.test('stop: no new connections, calls in flight finish', async (t) => {
  const held: http.ServerResponse[] = [];
  const be = await echoBackend(t, (_req, res) => { held.push(res); return true; });
  const s = await startSluice(t, { passthru_http: { graceful_stop_timeout: '10s' } }, { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const inflight = request(s.url('/slow/1.0.0/a'));
  await eventually(() => held.length === 1, 'the call to reach the backend');
  const stopping = s.stop();
  await new Promise((r) => setTimeout(r, 300));
  const late = await request(s.url('/slow/1.0.0/b'), { timeoutMs: 2000 });
  t.equal(late.status, 0, 'a new connection is refused while stopping');
  held[0]!.end('{"late":"but whole"}');
  const r = await inflight;
  t.equal(r.status, 200, 'the call in flight finished');
  t.equal(r.text, '{"late":"but whole"}');
  await stopping;
  t.pass('stopped');
});

t.test('stop: the deadline ends calls that do not finish', async (t) => {
  const be = await echoBackend(t, () => true);
  const s = await startSluice(t, { passthru_http: { graceful_stop_timeout: '500ms' } }, { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const inflight = request(s.url('/slow/1.0.0/a'));
  await eventually(() => be.seen.length === 1, 'the call to reach the backend');
  const t0 = Date.now();
  await s.stop();
  t.ok(Date.now() - t0 < 5000, 'stopped soon after the deadline');
  const r = await inflight;
  t.ok(r.status === 0 || r.aborted, 'the unfinished call was cut');
});
