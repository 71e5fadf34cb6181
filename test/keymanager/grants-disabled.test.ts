import t from 'tap';
import { startTestKeyManager } from '../fixtures/keymanager-harness.js';

for (const grant of ['client_credentials', 'password', 'refresh_token'] as const) {
  t.test(`oauth.grant_type.${grant}.enable = false: unsupported_grant_type`, async (t) => {
    const k = await startTestKeyManager(t, { conf: { oauth: { grant_type: { [grant]: { enable: false } } } } });
    const body: Record<string, string> = { grant_type: grant, username: 'admin', password: 'admin', refresh_token: 'x' };
    const r = await k.token(body);
    t.equal(r.status, 400);
    t.equal(r.json.error, 'unsupported_grant_type');
    t.match(r.json.error_description, `oauth.grant_type.${grant}.enable = false`);
    t.equal(r.headers['cache-control'], 'no-store');
    const other = grant === 'client_credentials' ? { grant_type: 'password', username: 'admin', password: 'admin' } : { grant_type: 'client_credentials' };
    t.equal((await k.token(other)).status, 200, 'the other grants still work');
  });
}

t.test('refresh_token grant disabled: the password grant issues no refresh token (seed rule 3)', async (t) => {
  const k = await startTestKeyManager(t, { conf: { oauth: { grant_type: { refresh_token: { enable: false } } } } });
  const r = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal(r.status, 200);
  t.notOk(r.json.refresh_token);
});

t.test('allow_refresh_tokens = true: client credentials get a refresh token (seed rule 4)', async (t) => {
  const k = await startTestKeyManager(t, { conf: { oauth: { grant_type: { client_credentials: { allow_refresh_tokens: true } } } } });
  const r = await k.token({ grant_type: 'client_credentials' });
  t.equal(r.status, 200);
  t.type(r.json.refresh_token, 'string');
  const again = await k.token({ grant_type: 'refresh_token', refresh_token: r.json.refresh_token });
  t.equal(again.status, 200);
  t.equal(again.json.expires_in, 3600);
});

t.test('a grant missing from the key\'s grant_types: unauthorized_client', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' }, 'acme-other', 'acme-other-secret');
  t.equal(r.status, 400);
  t.equal(r.json.error, 'unauthorized_client');
  t.equal((await k.token({ grant_type: 'client_credentials' }, 'acme-other', 'acme-other-secret')).status, 200);
});

t.test('grants Sluice does not implement and unknown grants: unsupported_grant_type', async (t) => {
  const k = await startTestKeyManager(t);
  for (const g of ['implicit', 'urn:ietf:params:oauth:grant-type:saml2-bearer', 'kerberos', 'urn:acme:nothing']) {
    const r = await k.token({ grant_type: g });
    t.equal(r.status, 400, g);
    t.equal(r.json.error, 'unsupported_grant_type', g);
  }
  const code = await k.token({ grant_type: 'authorization_code', code: 'x' });
  t.equal(code.json.error, 'unauthorized_client', 'an implemented grant the key does not list');
});
