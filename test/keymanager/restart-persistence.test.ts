import t from 'tap';
import { startTestKeyManager, basic, decodeJwt } from '../fixtures/keymanager-harness.js';

t.test('tokens, refresh tokens and revocations survive a restart', async (t) => {
  const k = await startTestKeyManager(t);
  const cc = await k.token({ grant_type: 'client_credentials' });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const revoked = await k.token({ grant_type: 'client_credentials' });
  t.equal((await k.post('/oauth2/revoke', { token: revoked.json.access_token }, { authorization: basic('acme-client', 'acme-secret') })).status, 200);
  await k.stop();

  const k2 = await startTestKeyManager(t, { home: k.home });
  t.equal((await k2.introspect(cc.json.access_token)).json.active, true, 'an access token issued before the restart');
  t.equal((await k2.introspect(revoked.json.access_token)).json.active, false, 'a revoked one stays revoked');
  const r = await k2.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token });
  t.equal(r.status, 200, 'a refresh token issued before the restart');
  const list = await k2.km.tokens.revokedTokens();
  const ids = list.map((x) => x.tokenId);
  t.ok(ids.includes(decodeJwt(revoked.json.access_token).payload.jti), 'a starting gateway can load the revoked JWTs');
  t.ok(ids.includes(decodeJwt(pw.json.access_token).payload.jti), 'and the ones replaced by a refresh');
  t.notOk(ids.includes(decodeJwt(cc.json.access_token).payload.jti));
});
