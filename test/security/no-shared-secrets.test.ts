// No secret ships in git (issue 18 items 3 and 4): key material is not tracked, and every home generates
// its own TLS key store on first start.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeHome } from '../helpers/home.js';
import { startNodeOn } from '../operations/helpers/node.js';

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
