import t from 'tap';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request, type SeenRequest, faultOf } from '../helpers/backends.js';
import { generateSelfSignedStore } from '../../transport/tls/self-signed.js';
import { loadKeyMaterial } from '../../transport/tls/key-store.js';

function httpsGet(url: string, ca?: string): Promise<{ status: number; body: string; cert: crypto.X509Certificate | null }> {
  return new Promise((resolve, reject) => {
    const r = https.get(url, { agent: false, ...(ca ? { ca } : { rejectUnauthorized: false }) }, (res) => {
      const sock = res.socket as import('node:tls').TLSSocket;
      const raw = sock.getPeerX509Certificate?.() ?? null;
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, body, cert: raw }));
    });
    r.on('error', reject);
  });
}

t.test('the HTTPS listener works out of the box with a generated self-signed key store', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const store = path.join(s.home.dir, 'repository/resources/security/sluice-tls.p12');
  t.ok(fs.existsSync(store), 'a key store was generated in the home');
  const mat = loadKeyMaterial({ file: store, type: 'PKCS12', password: 'sluice', keyPassword: undefined });
  const r = await httpsGet(s.httpsUrl('/echo/1.0.0/a'), mat.certChainPem);
  t.equal(r.status, 200, 'trusted with the generated certificate');
  t.equal((JSON.parse(r.body) as SeenRequest).headers['x-forwarded-proto'], 'https');
});

t.test('a PEM key store is accepted; a JKS one is refused with the command that converts it', async (t) => {
  const tmp = fs.mkdtempSync('/tmp/sluice-pem-');
  t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));
  generateSelfSignedStore(path.join(tmp, 'x.p12'), 'pw', 'localhost');
  const mat = loadKeyMaterial({ file: path.join(tmp, 'x.p12'), type: 'PKCS12', password: 'pw', keyPassword: undefined });
  fs.writeFileSync(path.join(tmp, 'x.pem'), mat.keyPem + mat.certChainPem);
  const be = await echoBackend(t);
  const s = await startSluice(t, { transport: { passthru_https: { 'listener.key_store.file_name': path.join(tmp, 'x.pem'), 'listener.key_store.type': 'PEM' } } },
    { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const r = await httpsGet(s.httpsUrl('/echo/1.0.0/a'), mat.certChainPem);
  t.equal(r.status, 200);
  const jks = path.join(tmp, 'store.jks');
  fs.writeFileSync(jks, Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]));
  t.throws(() => loadKeyMaterial({ file: jks, type: 'JKS', password: 'x', keyPassword: undefined }), /keytool -importkeystore .*-deststoretype PKCS12/);
});

t.test('TLS backends: trusted through sender.trust_store; an untrusted certificate fails with 101503', async (t) => {
  const tmp = fs.mkdtempSync('/tmp/sluice-be-tls-');
  t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));
  generateSelfSignedStore(path.join(tmp, 'be.p12'), 'pw', 'localhost');
  const mat = loadKeyMaterial({ file: path.join(tmp, 'be.p12'), type: 'PKCS12', password: 'pw', keyPassword: undefined });
  fs.writeFileSync(path.join(tmp, 'ca.pem'), mat.certChainPem);
  const server = https.createServer({ key: mat.keyPem, cert: mat.certChainPem }, (req, res) => res.end(JSON.stringify({ url: req.url, sni: (req.socket as import('node:tls').TLSSocket).servername })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const api = apiToml({ name: 'Sec', context: '/sec', production: `https://localhost:${port}/base` });
  const trusted = await startSluice(t, { transport: { passthru_https: { 'sender.trust_store.file_name': path.join(tmp, 'ca.pem'), 'sender.trust_store.type': 'PEM' } } }, { [`${API_DIR}/sec.toml`]: api });
  let r = await request(trusted.url('/sec/1.0.0/x'));
  t.equal(r.status, 200);
  t.same(r.json, { url: '/base/x', sni: 'localhost' }, 'SNI sent, path mapped');
  const untrusted = await startSluice(t, {}, { [`${API_DIR}/sec.toml`]: api });
  r = await request(untrusted.url('/sec/1.0.0/x'));
  t.equal(faultOf(r)?.code, 101503, 'a certificate nobody trusts fails the connection');
});

t.test('two io threads serve the same port', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  t.equal(s.node.gateway?.threads.size, 2);
  const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => request(s.url(`/echo/1.0.0/${i}`))));
  t.ok(rs.every((r) => r.status === 200), 'every call answered');
  t.equal(be.seen.length, 40);
});
