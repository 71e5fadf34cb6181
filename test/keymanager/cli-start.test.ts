import t from 'tap';
import { makeHome, request, basic } from '../fixtures/keymanager-harness.js';
import { requireBuild, freeOffset, startSluice, waitPort } from '../fixtures/sluice-process.js';

requireBuild();

t.test('sluice start, api-key-manager role: servlet ports 9443 and 9763 plus the offset; SIGTERM stops cleanly', async (t) => {
  const offset = await freeOffset();
  const home = makeHome(t, { conf: { server: { offset, server_role: 'api-key-manager' }, sluice: { log: { level: 'info' } } } });
  const p = startSluice(t, home);
  await waitPort(9443 + offset);
  await waitPort(9763 + offset);
  const r = await request(`https://127.0.0.1:${9443 + offset}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('acme-client', 'acme-secret') }, body: 'grant_type=client_credentials' });
  t.equal(r.status, 200);
  t.match(p.output(), new RegExp(`key manager listening https=${9443 + offset} http=${9763 + offset}`));
  p.child.kill('SIGTERM');
  const ex = await p.exited;
  t.equal(ex.code, 0);
  t.match(p.output(), /key manager stopped/);
  t.notOk(p.output().includes('acme-secret'));
});

t.test('sluice start, gateway-worker role: no key manager; the servlet ports serve health and metrics only', async (t) => {
  const offset = await freeOffset();
  const home = makeHome(t, { conf: { server: { offset, server_role: 'gateway-worker' }, sluice: { log: { level: 'info' } } } });
  const p = startSluice(t, home);
  await waitPort(8280 + offset);
  await waitPort(9763 + offset);
  t.equal((await request(`http://127.0.0.1:${9763 + offset}/health/live`)).status, 200);
  t.equal((await request(`http://127.0.0.1:${9763 + offset}/metrics`)).status, 200);
  const token = await request(`https://127.0.0.1:${9443 + offset}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('acme-client', 'acme-secret') }, body: 'grant_type=client_credentials' });
  t.equal(token.status, 404, 'no token endpoint on a gateway-worker');
  t.notMatch(p.output(), /key manager listening/);
  t.match(p.output(), /without \[apim\.event_hub\] service_url: serving the local API files only/);
  p.child.kill('SIGTERM');
  const exit = await p.exited;
  t.equal(exit.code, 0, `${JSON.stringify(exit)} ${p.output().slice(-1500)}`);
});

t.test('sluice start: the key manager failing to start exits non-zero with the reason', async (t) => {
  const offset = await freeOffset();
  const home = makeHome(t, { conf: { server: { offset }, database: { apim_db: { type: 'postgre', url: 'jdbc:postgresql://127.0.0.1:1/apim', username: 'u', password: 'p', pool_options: { maxWait: 2000 } } }, sluice: { log: { level: 'info' } } } });
  const p = startSluice(t, home);
  const ex = await p.exited;
  t.not(ex.code, 0);
  t.match(p.output(), /PostgreSQL at postgresql:\/\/127\.0\.0\.1:1\/apim cannot be used/);
});
