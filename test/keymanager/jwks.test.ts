import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { startTestKeyManager, request } from '../fixtures/keymanager-harness.js';

t.test('JWKS at /oauth2/jwks and /oauth2/jwks.json; the signing key is made once, 0600, and kept', async (t) => {
  const k = await startTestKeyManager(t);
  const a = await request(`${k.base}/oauth2/jwks`);
  const b = await request(`${k.base}/oauth2/jwks.json`);
  t.equal(a.status, 200);
  t.same(a.json, b.json);
  t.equal(a.json.keys.length, 1);
  const key = a.json.keys[0];
  t.same(Object.keys(key).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
  t.equal(key.alg, 'RS256');
  t.equal(key.use, 'sig');
  const file = path.join(k.home, 'repository/resources/security/oauth-signing.generated.pem');
  t.equal(fs.statSync(file).mode & 0o777, 0o600);
  const tok = (await k.token({ grant_type: 'client_credentials' })).json.access_token;
  await k.stop();
  const k2 = await startTestKeyManager(t, { home: k.home });
  const again = await request(`${k2.base}/oauth2/jwks`);
  t.same(again.json, a.json, 'same key after a restart');
  await jwtVerify(tok, createLocalJWKSet(again.json));
  t.pass('a token from before the restart verifies');
});

t.test('an operator key (oauth-signing.pem) signs; retired keys stay published', async (t) => {
  const k0 = await startTestKeyManager(t);
  const old = (await k0.token({ grant_type: 'client_credentials' })).json.access_token;
  await k0.stop();
  const sec = path.join(k0.home, 'repository/resources/security');
  fs.renameSync(path.join(sec, 'oauth-signing.generated.pem'), path.join(sec, 'oauth-signing.retired-1.pem'));
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(path.join(sec, 'oauth-signing.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o644 });
  const k = await startTestKeyManager(t, { home: k0.home });
  t.equal(fs.statSync(path.join(sec, 'oauth-signing.pem')).mode & 0o777, 0o600, 'tightened to 0600');
  t.ok(k.logs.lines.some((l) => /mode is now 0600/.test(String(l['msg']))));
  const jwks = (await request(`${k.base}/oauth2/jwks`)).json;
  t.equal(jwks.keys.length, 2);
  const fresh = (await k.token({ grant_type: 'client_credentials' })).json.access_token;
  const set = createLocalJWKSet(jwks);
  await jwtVerify(fresh, set);
  await jwtVerify(old, set);
  t.not(JSON.parse(Buffer.from(fresh.split('.')[0], 'base64url').toString()).kid, JSON.parse(Buffer.from(old.split('.')[0], 'base64url').toString()).kid);
});

t.test('the per-process TLS files the key manager wrote are removed when it stops', async (t) => {
  const k = await startTestKeyManager(t);
  const dir = path.join(k.home, 'repository/resources/security/generated');
  t.ok(fs.readdirSync(dir).some((f) => f.endsWith('.key.pem')));
  await k.stop();
  t.same(fs.readdirSync(dir), []);
});
