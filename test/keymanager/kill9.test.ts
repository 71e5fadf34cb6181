import t from 'tap';
import https from 'node:https';
import { makeHome, basic } from '../fixtures/keymanager-harness.js';
import { requireBuild, freeOffset, startSluice, waitPort } from '../fixtures/sluice-process.js';

requireBuild();

const agent = new https.Agent({ keepAlive: true, maxSockets: 16, rejectUnauthorized: false });
function post(port: number, path: string, body: string, auth: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve) => {
    const r = https.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { let json; try { json = JSON.parse(text); } catch { /* */ } resolve({ status: res.statusCode ?? 0, json }); });
      res.on('error', () => resolve({ status: 0, json: undefined }));
    });
    r.on('error', () => resolve({ status: 0, json: undefined }));
    r.end(body);
  });
}

for (const pool of [0, 4]) {
  t.test(`kill -9 during a burst of token requests loses no token a client received (persistence_pool_size = ${pool})`, async (t) => {
    const offset = await freeOffset();
    const home = makeHome(t, { conf: { server: { offset }, session_data: { persistence: { persistence_pool_size: pool } }, sluice: { log: { level: 'warn' } } } });
    const port = 9443 + offset;
    const p1 = startSluice(t, home);
    await waitPort(port);
    const auth = basic('acme-client', 'acme-secret');
    // Warm up: the first verification of the secret pays scrypt.
    t.equal((await post(port, '/oauth2/token', 'grant_type=client_credentials', auth)).status, 200, p1.output());
    const answered: { access: string; refresh?: string }[] = [];
    let stop = false;
    let failures = 0;
    const worker = async (i: number): Promise<void> => {
      while (!stop) {
        const body = i % 2 ? 'grant_type=client_credentials' : 'grant_type=password&username=admin&password=admin';
        const r = await post(port, '/oauth2/token', body, auth);
        if (r.status === 200) answered.push({ access: r.json.access_token, refresh: r.json.refresh_token });
        else failures++;
      }
    };
    const workers = Array.from({ length: 16 }, (_, i) => worker(i));
    while (answered.length < 300) await new Promise((r) => setTimeout(r, 5));
    p1.child.kill('SIGKILL');
    const ex = await p1.exited;
    stop = true;
    await Promise.all(workers);
    t.equal(ex.signal, 'SIGKILL');
    t.ok(failures > 0 || answered.length >= 300, `${answered.length} answered, ${failures} cut by the kill`);

    const p2 = startSluice(t, home);
    await waitPort(port);
    const admin = basic('admin', 'admin');
    let lost = 0;
    for (const a of answered) {
      const i = await post(port, '/oauth2/introspect', `token=${encodeURIComponent(a.access)}`, admin);
      if (i.json?.active !== true) lost++;
      if (a.refresh) {
        const ri = await post(port, '/oauth2/introspect', `token=${encodeURIComponent(a.refresh)}&token_type_hint=refresh_token`, admin);
        if (ri.json?.active !== true) lost++;
      }
    }
    t.equal(lost, 0, `every one of ${answered.length} answered tokens (and their refresh tokens) is known after the restart`);
    p2.child.kill('SIGTERM');
    const ex2 = await p2.exited;
    t.equal(ex2.code, 0, 'a SIGTERM stops cleanly');
  });
}
t.teardown(() => agent.destroy());
