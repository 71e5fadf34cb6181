import t from 'tap';
import net from 'node:net';
import { startTestKeyManager, basic, request } from '../fixtures/keymanager-harness.js';

const AUTH = { authorization: basic('acme-client', 'acme-secret') };

t.test('RFC 6749 §5.2 errors of the token endpoint', async (t) => {
  const k = await startTestKeyManager(t);
  const cases: [string, Promise<Awaited<ReturnType<typeof k.post>>>, number, string][] = [
    ['missing grant_type', k.post('/oauth2/token', {}, AUTH), 400, 'invalid_request'],
    ['empty grant_type', k.post('/oauth2/token', 'grant_type=', AUTH), 400, 'invalid_request'],
    ['unknown grant', k.post('/oauth2/token', { grant_type: 'urn:acme:nothing' }, AUTH), 400, 'unsupported_grant_type'],
    ['repeated parameter', k.post('/oauth2/token', 'grant_type=client_credentials&grant_type=password', AUTH), 400, 'invalid_request'],
    ['bad client secret', k.post('/oauth2/token', { grant_type: 'client_credentials' }, { authorization: basic('acme-client', 'wrong') }), 401, 'invalid_client'],
    ['unknown client', k.post('/oauth2/token', { grant_type: 'client_credentials' }, { authorization: basic('nobody', 'x') }), 401, 'invalid_client'],
    ['no client authentication', k.post('/oauth2/token', { grant_type: 'client_credentials' }), 401, 'invalid_client'],
    ['malformed Basic', k.post('/oauth2/token', { grant_type: 'client_credentials' }, { authorization: 'Basic !!!' }), 401, 'invalid_client'],
    ['Basic without a colon', k.post('/oauth2/token', { grant_type: 'client_credentials' }, { authorization: 'Basic ' + Buffer.from('acme-client').toString('base64') }), 401, 'invalid_client'],
    ['JSON body', k.post('/oauth2/token', JSON.stringify({ grant_type: 'client_credentials' }), { ...AUTH, 'content-type': 'application/json' }), 400, 'invalid_request'],
    ['no content type', request(`${k.base}/oauth2/token`, { method: 'POST', headers: AUTH, body: 'grant_type=client_credentials' }), 400, 'invalid_request'],
    ['malformed form', k.post('/oauth2/token', 'grant_type=client_credentials&scope=%zz', AUTH), 400, 'invalid_request'],
    ['invalid UTF-8 in the form', k.post('/oauth2/token', 'grant_type=client_credentials&scope=%C3%28', AUTH), 400, 'invalid_request'],
    ['bad scope characters', k.post('/oauth2/token', { grant_type: 'client_credentials', scope: 'a"b' }, AUTH), 400, 'invalid_scope'],
  ];
  for (const [name, p, status, error] of cases) {
    const r = await p;
    t.equal(r.status, status, `${name}: ${r.text}`);
    t.equal(r.json?.error, error, name);
    t.type(r.json?.error_description, 'string', name);
    t.equal(r.headers['cache-control'], 'no-store', `${name}: Cache-Control`);
    t.equal(r.headers['pragma'], 'no-cache', `${name}: Pragma`);
    if (status === 401) t.equal(r.headers['www-authenticate'], 'Basic realm="sluice"', `${name}: WWW-Authenticate`);
  }
});

t.test('only POST reaches the token endpoint', async (t) => {
  const k = await startTestKeyManager(t);
  const r = await request(`${k.base}/oauth2/token?grant_type=client_credentials`, { headers: AUTH });
  t.equal(r.status, 405);
  t.match(r.headers['allow'], /POST/);
});

t.test('a huge body gets 413 and the process keeps serving', async (t) => {
  const k = await startTestKeyManager(t);
  const big = 'grant_type=client_credentials&pad=' + 'x'.repeat(2 * 1024 * 1024);
  const r = await k.post('/oauth2/token', big, AUTH);
  t.ok(r.status === 413 || r.status === 0, `413 or a closed connection, got ${r.status} ${r.error ?? ''}`);
  if (r.status === 413) t.equal(r.json.error, 'payload_too_large');
  t.equal((await k.token({ grant_type: 'client_credentials' })).status, 200);
});

t.test('a body that never ends, garbage HTTP and a client that hangs up: the process keeps serving', async (t) => {
  const k = await startTestKeyManager(t);
  const port = k.km.addresses.http!;
  // Garbage on the plain HTTP port.
  const garbage = await new Promise<string>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('NOT HTTP AT ALL\r\n\r\n'));
    let got = '';
    s.on('data', (d) => { got += d.toString(); });
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
  });
  t.match(garbage, /^HTTP\/1\.1 400/);
  // A client that announces a body and closes halfway.
  await new Promise<void>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write('POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=cl');
      setTimeout(() => { s.destroy(); resolve(); }, 50);
    });
    s.on('error', () => resolve());
  });
  const ok = await request(`${k.httpBase}/oauth2/token`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
  t.equal(ok.status, 200, 'the plain HTTP servlet port serves the token endpoint too');
  t.equal((await k.token({ grant_type: 'client_credentials' })).status, 200);
});
