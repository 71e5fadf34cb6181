import t from 'tap';
import { startTestKeyManager, basic, OPAQUE_APP } from '../fixtures/keymanager-harness.js';
import { tokenHash } from '../../engine/keymanager/token-crypto.js';

t.test('token_type = "OPAQUE": reference tokens, validated by the introspection call', async (t) => {
  const k = await startTestKeyManager(t, { apps: { 'opaque.toml': OPAQUE_APP } });
  const auth = { authorization: basic('acme-opaque', 'acme-opaque-secret') };
  const cc = await k.post('/oauth2/token', { grant_type: 'client_credentials' }, auth);
  t.equal(cc.status, 200);
  t.match(cc.json.access_token, /^[A-Za-z0-9_-]{43}$/, 'not a JWT: 256 random bits');
  const i = await k.introspect(cc.json.access_token);
  t.equal(i.json.active, true);
  t.equal(i.json.token_format, 'OPAQUE');
  t.equal(i.json.jti, tokenHash(cc.json.access_token), 'the id of an opaque token is its hash');
  const pw = await k.post('/oauth2/token', { grant_type: 'password', username: 'admin', password: 'admin' }, auth);
  const rf = await k.post('/oauth2/token', { grant_type: 'refresh_token', refresh_token: pw.json.refresh_token }, auth);
  t.equal(rf.status, 200);
  t.match(rf.json.access_token, /^[A-Za-z0-9_-]{43}$/);
  const rv = await k.post('/oauth2/revoke', { token: cc.json.access_token }, auth);
  t.equal(rv.headers['revokedaccesstoken'], tokenHash(cc.json.access_token));
  const ev = k.events.find((e) => e.tokenId === tokenHash(cc.json.access_token));
  t.ok(ev);
  t.equal(ev!.tokenType, 'OPAQUE');
  t.equal((await k.introspect(cc.json.access_token)).json.active, false);
});
