import t from 'tap';
import { startTestKeyManager, OPAQUE_APP, basic } from '../fixtures/keymanager-harness.js';

const AUTH = { authorization: basic('acme-opaque', 'acme-opaque-secret') };

t.test('retry_count_on_persistence_failures: a key clash is retried with a new token', async (t) => {
  let forced: string[] = [];
  const random = () => forced.shift() ?? require_random();
  const k = await startTestKeyManager(t, { apps: { 'o.toml': OPAQUE_APP }, conf: { oauth: { token_generation: { retry_count_on_persistence_failures: 2 } } }, opts: { randomToken: random } });
  forced = ['clash-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'];
  const first = await k.post('/oauth2/token', { grant_type: 'client_credentials' }, AUTH);
  t.equal(first.json.access_token, 'clash-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
  forced = ['clash-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'clash-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'];
  const second = await k.post('/oauth2/token', { grant_type: 'client_credentials' }, AUTH);
  t.equal(second.status, 200, 'two clashes, two retries');
  t.not(second.json.access_token, first.json.access_token);
  t.equal(k.logs.lines.filter((l) => /key clash in the store; retrying/.test(String(l['msg']))).length, 2);
  forced = Array(3).fill('clash-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
  const third = await k.post('/oauth2/token', { grant_type: 'client_credentials' }, AUTH);
  t.equal(third.status, 500, 'a clash beyond the retry count');
  t.equal(third.json.error, 'server_error');
});

function require_random(): string {
  return Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2) + Date.now().toString(36);
}

t.test('persistence_pool_size > 0: batched writes, each token stored before it is answered', async (t) => {
  const k = await startTestKeyManager(t, { conf: { session_data: { persistence: { persistence_pool_size: 4 } } } });
  const list = await Promise.all(Array.from({ length: 60 }, () => k.token({ grant_type: 'client_credentials' })));
  t.ok(list.every((r) => r.status === 200));
  const counts = await k.km.store.tokens.countByState();
  t.equal(counts['ACTIVE'], 60, 'all 60 in the store');
  for (const r of list.slice(0, 5)) t.equal((await k.introspect(r.json.access_token)).json.active, true);
});

t.test('[oauth.token_cleanup]: expired tokens move to the audit table', async (t) => {
  let now = Date.now();
  const k = await startTestKeyManager(t, { opts: { now: () => now } });
  const cc = await k.token({ grant_type: 'client_credentials' });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const live = await k.token({ grant_type: 'client_credentials' });
  now += 3601_000;
  const live2 = await k.token({ grant_type: 'client_credentials' });
  const removed = await k.km.store.tokens.cleanup(now, true);
  t.equal(removed, 2, 'the expired client-credentials tokens; the password pair keeps a usable refresh token');
  t.equal(await k.km.store.tokens.auditCount(), 2);
  t.equal((await k.introspect(cc.json.access_token)).json.active, false);
  t.ok(live.json && live2.json);
  now += 86_400_000;
  t.equal(await k.km.store.tokens.cleanup(now, false), 2, 'then the password pair and the later token, without audit');
  t.equal(await k.km.store.tokens.auditCount(), 2);
  t.equal((await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token })).json.error, 'invalid_grant');
});

t.test('the cleanup runs at start and on its interval', async (t) => {
  const k = await startTestKeyManager(t, { conf: { oauth: { token_validation: { app_access_token_validity: 1 }, token_cleanup: { interval: '300ms' } } } });
  await k.token({ grant_type: 'client_credentials' });
  await new Promise((r) => setTimeout(r, 1800));
  t.equal(await k.km.store.tokens.auditCount(), 1);
  t.ok(k.logs.lines.some((l) => l['msg'] === 'expired tokens cleaned up'));
});
