import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, faultOf } from '../helpers/backends.js';
import { generateSelfSignedStore } from '../../transport/tls/self-signed.js';
import { loadKeyMaterial } from '../../transport/tls/key-store.js';

t.test('GraphQL APIs: a query with a syntax error is 900422 with 422 before any backend call', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { gql: securedApiToml({ name: 'Gql', context: '/gql', production: be.url, type: 'GRAPHQL', authType: 'None' }) },
  });
  let r = await s.call('/gql/1.0.0/graphql', undefined, { method: 'POST', body: JSON.stringify({ query: '{ menu { name ' }), headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 422);
  t.equal(faultOf(r)?.code, 900422);
  r = await s.call('/gql/1.0.0/graphql?query=' + encodeURIComponent('query { ]'), undefined);
  t.equal(faultOf(r)?.code, 900422, 'GET ?query= too');
  t.equal(be.seen.length, 0);
  r = await s.call('/gql/1.0.0/graphql', undefined, { method: 'POST', body: JSON.stringify({ query: '{ menu { name price } }' }), headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200, 'a valid query passes');
  t.equal(be.seen[0]!.bodyLength, JSON.stringify({ query: '{ menu { name price } }' }).length, 'the body reaches the backend whole');
});

t.test('[apimgt.mutual_ssl]: the client certificate header must hold one of the API certificates', async (t) => {
  const tmp = fs.mkdtempSync('/tmp/sluice-mtls-');
  t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));
  generateSelfSignedStore(path.join(tmp, 'good.p12'), 'pw', 'client.acme.test');
  generateSelfSignedStore(path.join(tmp, 'bad.p12'), 'pw', 'other.test');
  const good = loadKeyMaterial({ file: path.join(tmp, 'good.p12'), type: 'PKCS12', password: 'pw', keyPassword: undefined }).certChainPem;
  const bad = loadKeyMaterial({ file: path.join(tmp, 'bad.p12'), type: 'PKCS12', password: 'pw', keyPassword: undefined }).certChainPem;
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { apimgt: { mutual_ssl: { enable_client_validation: true, certificate_header: 'SSL-CLIENT-CERT', client_certificate_encode: true } } },
    apis: { m: securedApiToml({ name: 'Mtls', context: '/mtls', production: be.url, authType: 'None', extra: `client_certificates = [${JSON.stringify(good)}]` }) },
  });
  t.equal(faultOf(await s.call('/mtls/1.0.0/x'))?.code, 900901, 'no certificate');
  t.equal(faultOf(await s.call('/mtls/1.0.0/x', undefined, { headers: { 'ssl-client-cert': encodeURIComponent(bad) } }))?.code, 900901, 'a certificate not on the list');
  const ok = await s.call('/mtls/1.0.0/x', undefined, { headers: { 'ssl-client-cert': encodeURIComponent(good) } });
  t.equal(ok.status, 200, 'the listed certificate');
});
