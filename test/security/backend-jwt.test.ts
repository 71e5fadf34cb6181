import t from 'tap';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, type SeenRequest } from '../helpers/backends.js';
import { loadKeyMaterial } from '../../transport/tls/key-store.js';

function gatewayCert(home: string): crypto.X509Certificate {
  const m = loadKeyMaterial({ file: path.join(home, 'repository/resources/security/sluice-tls.p12'), type: 'PKCS12', password: 'sluice', keyPassword: undefined });
  return new crypto.X509Certificate(m.certChainPem);
}

t.test('[apim.jwt]: the backend gets a signed JWT about the caller', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { apim: { jwt: { enable: true, 'gateway_generator.excluded_claims': 'http://wso2.org/claims/enduserTenantId' } } },
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', tier: '50PerMin', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0', tier: 'Gold' }] }) },
  });
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  const r = await s.call('/secure/1.0.0/x', at);
  t.equal(r.status, 200);
  const jwt = (r.json as SeenRequest).headers['x-jwt-assertion'] as string;
  t.ok(jwt, 'X-JWT-Assertion present');
  const [h, p, sig] = jwt.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64').toString()) as Record<string, string>;
  const claims = JSON.parse(Buffer.from(p, 'base64').toString()) as Record<string, string>;
  t.equal(header.alg, 'RS256');
  const cert = gatewayCert(s.home.dir);
  t.ok(crypto.verify('sha256', Buffer.from(`${h}.${p}`), cert.publicKey, Buffer.from(sig, 'base64')), 'signed with the gateway key');
  t.equal(header.x5t, crypto.createHash('sha1').update(cert.raw).digest('base64url') + '=', 'x5t: SHA-1 thumbprint, padded by default');
  t.ok(header.kid, 'kid by default (use_kid_property)');
  t.equal(claims['http://wso2.org/claims/applicationname'], 'AcmeApp');
  t.equal(claims['http://wso2.org/claims/applicationtier'], '50PerMin');
  t.equal(claims['http://wso2.org/claims/tier'], 'Gold');
  t.equal(claims['http://wso2.org/claims/apiname'], 'AcmeSecure');
  t.equal(claims['http://wso2.org/claims/apicontext'], '/secure/1.0.0');
  t.equal(claims['http://wso2.org/claims/keytype'], 'PRODUCTION');
  t.equal(claims['http://wso2.org/claims/client_id'], 'acme-client');
  t.equal(claims['http://wso2.org/claims/enduserTenantId'], undefined, 'excluded claims are left out');
  const again = await s.call('/secure/1.0.0/y', at);
  t.equal((again.json as SeenRequest).headers['x-jwt-assertion'], jwt, 'cached per token and API');
});

t.test('[apim.jwt] signing_algorithm NONE, base64url encoding, SHA-256 unpadded thumbprint, custom header', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { apim: { jwt: { enable: true, signing_algorithm: 'NONE', encoding: 'base64url', header: 'X-Acme-JWT', use_sha256_hash: true, encode_x5t_without_padding: true, use_kid_property: false } } },
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  const jwt = ((await s.call('/secure/1.0.0/x', at)).json as SeenRequest).headers['x-acme-jwt'] as string;
  const [h, , sig] = jwt.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, string>;
  t.equal(header.alg, 'none');
  t.equal(sig, '', 'unsigned');
  t.notOk(h.includes('='), 'base64url without padding');
  const cert = gatewayCert(s.home.dir);
  t.equal(header['x5t#S256'], crypto.createHash('sha256').update(cert.raw).digest('base64url'));
  t.equal(header.kid, undefined);
  void fs;
});
