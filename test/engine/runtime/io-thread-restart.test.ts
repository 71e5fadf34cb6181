import t from 'tap';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml, eventually } from '../../helpers/home.js';
import { echoBackend, faultOf, request } from '../../helpers/backends.js';
import { startSecured, appToml, securedApiToml } from '../../helpers/secured.js';
import { TELEMETRY_STATE_KEY } from '../../../engine/gateway/telemetry/types.js';
import type { IoThreadDataSource } from '../../../engine/runtime/io-threads.js';

t.test('an io thread that dies is restarted from current data; broadcasts do not wait for it; readiness says so meanwhile', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, {
    [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }),
  });
  const gw = s.node.gateway!;
  const ready = `http://127.0.0.1:${s.home.ports.servletHttp}/health/ready`;
  t.equal((await request(ready)).status, 200);
  t.equal(gw.threads.size, 2);

  // A malformed state value makes each thread's handler throw outside any try: the threads die as they
  // would from a bug. The push must still settle instead of waiting for acknowledgements forever.
  const pushed = gw.threads.pushState(TELEMETRY_STATE_KEY, null);
  const settled = await Promise.race([pushed.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
  t.ok(settled, 'the broadcast settled although its threads died');
  const down = await request(ready);
  t.equal(down.status, 503, 'not ready while io threads are down');
  t.match(down.text, /io thread \d is down/);

  // An API deployed while the threads are down reaches the restarted ones (they start from current data).
  s.home.write(`${API_DIR}/late.toml`, apiToml({ name: 'Late', context: '/late', production: be.url }));
  await eventually(async () => (await request(ready)).status === 200 && gw.threads.size === 2, 'both io threads running again', 15000);
  await eventually(async () => (await request(s.url('/late/1.0.0/x'))).status === 200, 'the API deployed meanwhile is served', 10000);
  for (let i = 0; i < 20; i++) t.equal((await request(s.url('/echo/1.0.0/x'), { headers: { connection: 'close' } })).status, 200, `call ${i} after the restart`);
  const logs = s.home.logs().map((l) => String(l['msg']));
  t.ok(logs.some((m) => m.includes('io thread exited; restarting it')), 'the death is logged');
  t.ok(logs.some((m) => m.includes('io thread restarted')), 'and the restart');
  await gw.threads.pushState(TELEMETRY_STATE_KEY, (s.node.telemetry as unknown as { settings(): unknown }).settings());
  t.pass('a broadcast to the restarted threads is acknowledged');
});

t.test('a revocation or a deployment broadcast while a restarted io thread\'s data is being read reaches that thread', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { passthru_http: { io_threads_per_reactor: 1 } },
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const gw = s.node.gateway!;
  const threads = gw.threads as unknown as { source: IoThreadDataSource };
  const token = (await s.token('acme-client', 'acme-secret')).accessToken!;
  t.equal((await s.call('/secure/1.0.0/x', token)).status, 200);

  // Hold the restart between reading the thread's data and starting it: the window a broadcast used to miss.
  const read = threads.source;
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let dataRead!: () => void;
  const dataWasRead = new Promise<void>((r) => { dataRead = r; });
  threads.source = async (index) => { const d = await read(index); dataRead(); await gate; return d; };

  void gw.threads.pushState(TELEMETRY_STATE_KEY, null); // the only io thread dies
  await dataWasRead;
  t.equal((await s.revoke('acme-client', 'acme-secret', token, 'access_token')).status, 200, 'revoked while the thread is down');
  s.home.write(`${API_DIR}/late.toml`, apiToml({ name: 'Late', context: '/late', production: be.url }));
  const held = (gw.threads as unknown as { missed: Map<number, { type: string }[]> }).missed;
  await eventually(() => held.get(0)?.some((m) => m.type === 'apis'), 'the new API\'s deployment was broadcast while the thread is down', 10000);
  t.ok(held.get(0)?.some((m) => m.type === 'state'), 'and the revocation');
  release();

  await eventually(async () => gw.threads.size === 1 && gw.threads.down.length === 0, 'the io thread runs again', 15000);
  const r = await s.call('/secure/1.0.0/x', token);
  t.equal(r.status, 401, 'the restarted thread knows the revocation it did not see');
  t.equal(faultOf(r)?.code, 900901);
  t.equal((await request(s.url('/late/1.0.0/x'))).status, 200, 'and serves the API deployed while its data was read');
});
