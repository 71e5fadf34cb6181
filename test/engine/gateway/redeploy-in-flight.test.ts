import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { echoBackend } from '../../helpers/backends.js';
import { apiToml, API_DIR } from '../../helpers/home.js';
import { appToml, securedApiToml, startSecured } from '../../helpers/secured.js';

// A call is routed on one deployment and authorized after its token is validated (a fresh token leaves the
// io thread for the verification worker). A redeployment in between must not change what the call sees:
// the trial had 70 of 3,000 calls answer 900901 while another API's file was rewritten every 300 ms.
t.test('redeploying one API fails no call in flight to another', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: {
      secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }),
      other: apiToml({ name: 'OtherAPI', context: '/other', production: `${be.url}/v0` }),
    },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const tokens: string[] = [];
  while (tokens.length < 1500) {
    const batch = await Promise.all(Array.from({ length: 20 }, () => s.token('acme-client', 'acme-secret')));
    for (const r of batch) { if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`); tokens.push(r.accessToken!); }
  }
  const deploys = (): number => s.home.logs().filter((l) => /API deployed: OtherAPI/.test(String(l['msg']))).length;
  const before = deploys();
  const file = path.join(s.home.dir, API_DIR, 'other.toml');
  let k = 0;
  const rewrite = setInterval(() => {
    k++;
    fs.writeFileSync(`${file}.tmp`, apiToml({ name: 'OtherAPI', context: '/other', production: `${be.url}/v${k % 2}` }));
    fs.renameSync(`${file}.tmp`, file);
  }, 200);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 30 });
  t.teardown(() => agent.destroy());
  const call = (token: string): Promise<{ status: number; text: string }> => new Promise((resolve) => {
    http.get(s.url('/secure/1.0.0/x'), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', (e) => resolve({ status: 0, text: e.message }));
  });
  const statuses: Record<number, number> = {};
  const failures: string[] = [];
  let applied = 0;
  const watch = setInterval(() => { applied = deploys() - before; }, 100);
  let next = 0;
  // Every token once (fresh: validated off the thread), and on until five redeployments have been applied.
  await Promise.all(Array.from({ length: 30 }, async () => {
    while (next < tokens.length || (applied < 5 && next < 20 * tokens.length)) {
      const r = await call(tokens[next++ % tokens.length]!);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status !== 200 && failures.length < 3) failures.push(`${r.status} ${r.text}`);
    }
  }));
  clearInterval(rewrite);
  clearInterval(watch);
  t.ok(applied >= 5, `${applied} redeployments of OtherAPI applied during ${next} calls (${k} rewrites)`);
  t.same(statuses, { 200: next }, `every call answered 200 (${failures.join('; ')})`);
});
