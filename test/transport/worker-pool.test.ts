import t from 'tap';
import http from 'node:http';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';

/** A backend that holds every request until released. */
async function heldBackend(t: Tap.Test) {
  const held: http.ServerResponse[] = [];
  const be = await echoBackend(t, (_req, res) => { held.push(res); return true; });
  return { be, held, release: () => { for (const r of held.splice(0)) r.end('{"released":true}'); } };
}

t.test('a full bounded queue drops the message with 503; queued messages run when a slot frees', async (t) => {
  const { be, held, release } = await heldBackend(t);
  const s = await startSluice(t, { passthru_http: { worker_pool_size_core: 1, worker_pool_size_max: 1, worker_pool_queue_length: 1 } },
    { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const first = request(s.url('/slow/1.0.0/a'));
  await eventually(() => held.length === 1, 'the first call to reach the backend');
  const second = request(s.url('/slow/1.0.0/b'));
  await new Promise((r) => setTimeout(r, 200));
  t.equal(held.length, 1, 'the second call waits in the queue, not at the backend');
  const third = await request(s.url('/slow/1.0.0/c'));
  t.equal(third.status, 503, 'the third finds the queue full');
  t.equal(faultOf(third)?.code, 503);
  t.ok(await eventually(() => s.home.logs().some((l) => /queue full/.test(String(l['msg']))), 'and the drop is logged', 5000), 'and the drop is logged');
  release();
  await eventually(() => held.length === 1, 'the queued call to get its slot');
  release();
  t.equal((await first).status, 200);
  t.equal((await second).status, 200);
  t.equal(be.seen.length, 2);
});

t.test('an unbounded queue (-1) holds every call until a slot frees', async (t) => {
  const { be, held, release } = await heldBackend(t);
  const s = await startSluice(t, { passthru_http: { worker_pool_size_core: 1, worker_pool_size_max: 1, worker_pool_queue_length: -1 } },
    { [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: be.url }) });
  const calls = Array.from({ length: 6 }, (_, i) => request(s.url(`/slow/1.0.0/${i}`)));
  for (let i = 0; i < 6; i++) {
    await eventually(() => held.length === 1, `call ${i} to reach the backend alone`);
    release();
  }
  const rs = await Promise.all(calls);
  t.same(rs.map((r) => r.status), [200, 200, 200, 200, 200, 200], 'none dropped');
  t.equal(be.seen.length, 6);
});
