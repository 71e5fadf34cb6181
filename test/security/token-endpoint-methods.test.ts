// RFC 6749 §3.2: the token endpoint takes POST only, on the key manager's ports and on the gateway's /token
// front (issue 18 item 8). The cases are test/fixtures/attacks/token-endpoint-methods.json (sources there).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSecured, securedApiToml, appToml, basic } from '../helpers/secured.js';
import { echoBackend } from '../helpers/backends.js';
import { request } from '../fixtures/keymanager-harness.js';

interface Case {
  readonly name: string; readonly method: string; readonly path: string; readonly basic: boolean;
  readonly form?: string; readonly headers?: Record<string, string>; readonly status?: number; readonly allowPost?: boolean;
}
const CASES = (JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/attacks/token-endpoint-methods.json'), 'utf8')) as { cases: Case[] }).cases;
const ID = 'acme-client';
const SECRET = 'acme-secret';

t.test('only POST with a form body gets a token: every other method is refused on the key manager ports and the gateway front, never with a token', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: ID, secret: SECRET }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const fronts = [
    { name: 'key manager HTTPS', base: s.kmUrl(''), token: '/oauth2/token' },
    { name: 'key manager HTTP', base: `http://127.0.0.1:${s.home.ports.servletHttp}`, token: '/oauth2/token' },
    { name: 'gateway HTTP', base: s.url(''), token: '/token' },
    { name: 'gateway HTTPS', base: s.httpsUrl(''), token: '/token' },
  ];
  for (const f of fronts) {
    for (const c of CASES) {
      const url = f.base + c.path.replace('{token}', f.token).replace('{id}', ID).replace('{secret}', SECRET);
      const headers: Record<string, string> = { ...(c.headers ?? {}) };
      if (c.basic) headers['authorization'] = basic(ID, SECRET);
      if (c.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const r = await request(url, { method: c.method, headers, ...(c.form !== undefined ? { body: c.form } : {}) });
      const what = `${f.name}: ${c.name}`;
      t.notMatch(r.text, /access_token/, `${what}: no token`);
      t.not(r.status, 200, `${what}: not 200`);
      if (c.status !== undefined) t.equal(r.status, c.status, `${what}: ${c.status}`);
      if (c.allowPost) t.match(r.headers['allow'], /\bPOST\b/, `${what}: Allow: POST`);
    }
    const ok = await request(`${f.base}${f.token}`, { method: 'POST', headers: { authorization: basic(ID, SECRET), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    t.equal(ok.status, 200, `${f.name}: control: POST with a form body gets a token`);
    t.match(ok.text, /access_token/);
  }
});
