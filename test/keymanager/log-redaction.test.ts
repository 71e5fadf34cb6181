import t from 'tap';
import { startTestKeyManager } from '../fixtures/keymanager-harness.js';

t.test('no token, secret or password reaches the log in clear', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  await k.token({ grant_type: 'client_credentials' }, 'acme-client', 'wrong-secret-xyz');
  await k.post('/oauth2/revoke', { token: pw.json.refresh_token }, { authorization: 'Basic ' + Buffer.from('acme-client:acme-secret').toString('base64') });
  const redacted = k.km.servlet['log'] as { info: (o: object, m: string) => void };
  redacted.info({ token: 'SHOULD-NOT-APPEAR', client_secret: 'NOR-THIS', headers: { authorization: 'Basic NOPE' } }, 'probe');
  const text = k.logs.text();
  for (const secret of [pw.json.access_token, pw.json.refresh_token, 'acme-secret', 'wrong-secret-xyz', 'SHOULD-NOT-APPEAR', 'NOR-THIS', 'Basic NOPE', '"admin","password"']) {
    t.notOk(text.includes(secret), `not in the log: ${secret.slice(0, 16)}`);
  }
  t.match(text, /\[redacted\]/);
});
