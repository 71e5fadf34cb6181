import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeHome, eventually } from '../helpers/home.js';
import { request, faultOf } from '../helpers/backends.js';
import { httpsPost, basic } from '../helpers/secured.js';
import { request as kmRequest } from '../fixtures/keymanager-harness.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

t.test('the README quick start: start with the sample backend, get a token, call, revoke, the call fails', async (t) => {
  const readme = fs.readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
  t.match(readme, /npm install && npm start/);
  t.match(readme, /pizza-client:pizza-secret -d grant_type=client_credentials https:\/\/localhost:9443\/oauth2\/token/);
  t.match(readme, /http:\/\/localhost:8280\/pizzashack\/1\.0\.0\/menu/);
  t.match(readme, /curl -sk -u "admin:\$\(cat home\/repository\/resources\/security\/super_admin\.password\)" https:\/\/localhost:9443\/api\/am\/admin\/v1\/apis/,
    'the admin line reads the generated password');

  // The project's home as a fresh clone has it (its sample API and application), on free ports; the sample backend on 9080.
  const home = await makeHome({ sluice: { log: { console: false } } }, {}, { fresh: true });
  t.teardown(() => home.cleanup());
  const child = spawn(process.execPath, [path.join(PROJECT, 'bin/sluice.js'), 'start', '--home', home.dir, '--with-sample-backend'], { stdio: 'ignore' });
  t.teardown(() => { child.kill('SIGKILL'); });
  const gw = `http://127.0.0.1:${home.ports.http}`;
  const km = `https://127.0.0.1:${home.ports.servletHttps}`;
  await eventually(async () => (await request(`${gw}/nothing`)).status === 404, 'the gateway to answer', 40000);

  const tok = await httpsPost(`${km}/oauth2/token`, { grant_type: 'client_credentials' }, { authorization: basic('pizza-client', 'pizza-secret') });
  t.equal(tok.status, 200, 'token');
  const at = (tok.json as { access_token: string }).access_token;
  const menu = await request(`${gw}/pizzashack/1.0.0/menu`, { headers: { authorization: `Bearer ${at}` } });
  t.equal(menu.status, 200, 'the sample API answers');
  t.ok(Array.isArray(menu.json) && (menu.json as { name: string }[]).some((p) => p.name === 'Spicy Italian'), 'with the menu');
  const rv = await httpsPost(`${km}/oauth2/revoke`, { token: at }, { authorization: basic('pizza-client', 'pizza-secret') });
  t.equal(rv.status, 200, 'revoked');
  const after = await request(`${gw}/pizzashack/1.0.0/menu`, { headers: { authorization: `Bearer ${at}` } });
  t.equal(after.status, 401);
  t.equal(faultOf(after)?.code, 900901, 'the revoked token is refused');

  const password = fs.readFileSync(path.join(home.dir, 'repository/resources/security/super_admin.password'), 'utf8').trim();
  const apis = await kmRequest(`${km}/api/am/admin/v1/apis`, { headers: { authorization: basic('admin', password) } });
  t.equal(apis.status, 200, 'the admin line: the generated password opens the admin API');

  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM stops it cleanly');
});
