// No secret ships in git (issue 18 items 3 and 4): key material is not tracked, every home generates its
// own TLS key store on first start, and a default home has no well-known administrator password.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually, makeHome } from '../helpers/home.js';
import { startNodeOn, basic } from '../operations/helpers/node.js';
import { appToml } from '../helpers/secured.js';
import { request } from '../fixtures/keymanager-harness.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY_FILE = /\.(p12|pfx|jks|keystore|key)$/i;
const PRIVATE_PEM = /-----BEGIN ([A-Z]+ )?PRIVATE KEY-----/;

/** The SHA-256 fingerprint of the certificate a TLS port serves. */
function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.end();
      resolve(fp);
    });
    s.on('error', reject);
  });
}

t.test('git tracks no private key material outside test fixtures', async (t) => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT, encoding: 'utf8' }).split('\0').filter((f) => f && !f.startsWith('test/'));
  t.ok(tracked.length > 100, `git ls-files lists the project (${tracked.length} files)`);
  const keys = tracked.filter((f) => KEY_FILE.test(f)
    || (/\.(pem|crt|cer|der|txt|toml|json)$/i.test(f) && fs.existsSync(path.join(PROJECT, f)) && PRIVATE_PEM.test(fs.readFileSync(path.join(PROJECT, f), 'utf8'))));
  t.same(keys, [], 'no key store or PEM private key is tracked');
  const ignored = execFileSync('git', ['check-ignore', '--no-index', 'home/repository/resources/security/sluice-tls.p12', 'home/repository/resources/security/x.pem'],
    { cwd: PROJECT, encoding: 'utf8' });
  t.match(ignored, /sluice-tls\.p12/, 'a generated key store in the default home is git-ignored');
});

t.test('two fresh homes get two different TLS key stores, readable by the owner only, served on the HTTPS ports', async (t) => {
  const prints: string[] = [];
  for (const name of ['a', 'b']) {
    const home = await makeHome({}, {}, { fresh: true });
    t.teardown(() => home.cleanup());
    const store = path.join(home.dir, 'repository/resources/security/sluice-tls.p12');
    const node = await startNodeOn(t, home);
    t.ok(fs.existsSync(store), `${name}: a key store was generated`);
    t.equal(fs.statSync(store).mode & 0o777, 0o600, `${name}: mode 0600`);
    const servlet = await servedCertificate(node.servletAddresses.https!);
    const gateway = await servedCertificate(home.ports.https);
    t.equal(gateway, servlet, `${name}: the gateway and the servlet HTTPS ports serve the same store`);
    prints.push(servlet);
  }
  t.not(prints[0], prints[1], 'each home has its own key and certificate');
});

t.test('a default home has no known administrator password: admin/admin opens nothing; the generated one is owner-only, logged by place, and stable', async (t) => {
  // An opaque-token application: the gateway validates its tokens at the key manager with the super
  // admin's credentials, so the generated password must reach that call too.
  const opaqueApp = appToml({ name: 'OpaqueApp', tokenType: 'OPAQUE', keys: [{ id: 'opaque-client', secret: 'opaque-secret', grants: ['client_credentials'] }],
    subscriptions: [{ api: 'PizzaShackAPI:1.0.0' }] });
  const home = await makeHome({}, { 'repository/deployment/server/applications/opaque-app.toml': opaqueApp }, { fresh: true });
  t.teardown(() => home.cleanup());
  const file = path.join(home.dir, 'repository/resources/security/super_admin.password');
  let node = await startNodeOn(t, home);
  const km = `https://127.0.0.1:${home.ports.servletHttps}`;
  const admin = (user: string, pw: string) => request(`${km}/api/am/admin/v1/apis`, { headers: { authorization: basic(user, pw) } });
  const passwordGrant = (pw: string) => request(`${km}/oauth2/token`, { method: 'POST', headers: { authorization: basic('pizza-client', 'pizza-secret'), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: pw }).toString() });

  t.equal((await admin('admin', 'admin')).status, 401, 'admin/admin does not open the admin API');
  t.equal((await passwordGrant('admin')).json?.error, 'invalid_grant', 'nor the password grant');
  t.ok(fs.existsSync(file), 'a password was generated into the home');
  t.equal(fs.statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
  const generated = fs.readFileSync(file, 'utf8').trim();
  t.ok(generated.length >= 20, 'a long random password');
  t.ok(await eventually(() => home.logs().some((l) => String(l['msg']).includes(file) && l['level'] === 'warn'), 'the warning saying where the password is', 5000), 'the log says where it is (a warning)');
  t.equal((await admin('admin', generated)).status, 200, 'the generated password opens the admin API');
  t.equal((await passwordGrant(generated)).status, 200, 'and the password grant');

  const opaque = await request(`${km}/oauth2/token`, { method: 'POST', headers: { authorization: basic('opaque-client', 'opaque-secret'), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
  const call = await request(`http://127.0.0.1:${home.ports.http}/pizzashack/1.0.0/menu`, { headers: { authorization: `Bearer ${opaque.json?.access_token}` } });
  // The sample backend does not run here: a call that passed authentication ends at the backend (101503).
  t.equal(call.json?.fault?.code, 101503, 'the gateway validated the opaque token at the key manager with the generated credentials');

  await node.stop();
  node = await startNodeOn(t, home);
  t.equal(fs.readFileSync(file, 'utf8').trim(), generated, 'a restart keeps the password');
  t.equal((await admin('admin', generated)).status, 200, 'which still opens the admin API');
  void node;
});
