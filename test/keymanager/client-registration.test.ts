import t from 'tap';
import { startTestKeyManager, basic, request } from '../fixtures/keymanager-harness.js';

const ADMIN = { authorization: basic('admin', 'admin'), 'content-type': 'application/json' };

for (const v of ['v0.14', 'v0.15']) {
  t.test(`POST /client-registration/${v}/register creates an application whose credentials work`, async (t) => {
    const k = await startTestKeyManager(t);
    const body = { clientName: 'rest_api_publisher', owner: 'admin', grantType: 'client_credentials password refresh_token', callbackUrl: 'https://example.com/cb', saasApp: true };
    const r = await request(`${k.base}/client-registration/${v}/register`, { method: 'POST', headers: ADMIN, body: JSON.stringify(body) });
    t.equal(r.status, 200, r.text);
    t.same(Object.keys(r.json).sort(), ['appOwner', 'callBackURL', 'clientId', 'clientName', 'clientSecret', 'isSaasApplication', 'jsonAppAttribute', 'jsonString', 'tokenType']);
    t.equal(r.json.clientName, 'admin_rest_api_publisher');
    t.equal(r.json.callBackURL, 'https://example.com/cb');
    t.equal(r.json.isSaasApplication, true);
    t.equal(r.json.appOwner, 'admin');
    t.same(JSON.parse(r.json.jsonString), { grant_types: 'client_credentials password refresh_token', redirect_uris: 'https://example.com/cb', client_name: 'admin_rest_api_publisher' });
    t.equal(r.headers['cache-control'], 'no-store');
    const tok = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' }, r.json.clientId, r.json.clientSecret);
    t.equal(tok.status, 200, tok.text);
    t.type(tok.json.refresh_token, 'string');
    const stored = await k.km.store.applications.findByClientId(r.json.clientId);
    t.equal(stored!.app.source, 'registration');
    t.match(stored!.key.clientSecretHash, /^scrypt\$/, 'the secret is stored hashed');
    t.ok(k.allEvents.some((e) => e.type === 'registry.changed'), 'registry.changed published');
    const again = await request(`${k.base}/client-registration/${v}/register`, { method: 'POST', headers: ADMIN, body: JSON.stringify(body) });
    t.equal(again.status, 200, 'the same owner registering the same name gets its keys back');
    t.equal(again.json.clientId, r.json.clientId);
    t.equal(again.json.clientSecret, r.json.clientSecret);
    t.equal((await k.token({ grant_type: 'client_credentials' }, again.json.clientId, again.json.clientSecret)).status, 200);
    t.notOk(JSON.stringify(await k.km.store.db.all('SELECT * FROM application_keys')).includes(r.json.clientSecret), 'the secret is not stored in clear');
    const other = await request(`${k.base}/client-registration/${v}/register`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ ...body, owner: 'bob' }) });
    t.equal(other.status, 200, 'another owner gets an application of its own');
    t.not(other.json.clientId, r.json.clientId);
  });
}

t.test('client registration: a name an application file holds is refused (its secret cannot be given)', async (t) => {
  const k = await startTestKeyManager(t, { apps: { 'a.toml': `name = "admin_Filed"\nowner = "admin"\n[[keys]]\nclient_id = "filed"\nclient_secret = "filed-secret"\n` } });
  const r = await request(`${k.base}/client-registration/v0.15/register`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ clientName: 'Filed' }) });
  t.equal(r.status, 409);
  t.equal(r.json.error, 'invalid_client_metadata');
});

t.test('client registration: administrator only, JSON only, clientName required', async (t) => {
  const k = await startTestKeyManager(t);
  await k.km.store.users.put('alice', '', []);
  const url = `${k.base}/client-registration/v0.15/register`;
  const ok = JSON.stringify({ clientName: 'x' });
  t.equal((await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ok })).status, 401);
  t.equal((await request(url, { method: 'POST', headers: { ...ADMIN, authorization: basic('admin', 'wrong') }, body: ok })).status, 401);
  t.equal((await request(url, { method: 'POST', headers: { ...ADMIN, authorization: basic('acme-client', 'acme-secret') }, body: ok })).status, 401, 'a client is not an administrator');
  const bad = await request(url, { method: 'POST', headers: ADMIN, body: '{"clientName": ' });
  t.equal(bad.status, 400);
  t.equal(bad.json.error, 'invalid_client_metadata');
  const form = await request(url, { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, body: 'clientName=x' });
  t.equal(form.status, 400);
  const noName = await request(url, { method: 'POST', headers: ADMIN, body: '{"owner":"admin"}' });
  t.equal(noName.status, 400);
  t.match(noName.json.error_description, /clientName/);
  const opaque = await request(url, { method: 'POST', headers: ADMIN, body: JSON.stringify({ clientName: 'ref', grantType: 'client_credentials', tokenType: 'OPAQUE', keyType: 'SANDBOX' }) });
  t.equal(opaque.status, 200);
  const tok = await k.token({ grant_type: 'client_credentials' }, opaque.json.clientId, opaque.json.clientSecret);
  t.match(tok.json.access_token, /^[A-Za-z0-9_-]{43}$/);
  t.equal((await k.introspect(tok.json.access_token)).json.key_type, 'SANDBOX');
});
