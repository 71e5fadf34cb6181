import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startTestKeyManager } from '../fixtures/keymanager-harness.js';
import { tokenHash } from '../../engine/keymanager/token-crypto.js';

function rows(home: string): { access_token: string | null; refresh_token: string | null; access_token_hash: string }[] {
  const db = new Database(path.join(home, 'repository/database/WSO2AM_DB.sqlite'), { readonly: true });
  try { return db.prepare('SELECT access_token, refresh_token, access_token_hash FROM oauth_tokens').all() as never; } finally { db.close(); }
}

t.test('default: tokens are stored as the reference system stores them (clear), looked up by hash', async (t) => {
  const k = await startTestKeyManager(t);
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const [row] = rows(k.home);
  t.equal(row!.access_token, pw.json.access_token);
  t.equal(row!.access_token_hash, tokenHash(pw.json.access_token));
});

t.test('enable_token_hashing: only hashes are stored; everything still works', async (t) => {
  const k = await startTestKeyManager(t, { conf: { apim: { oauth_config: { enable_token_hashing: true } } } });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const [row] = rows(k.home);
  t.equal(row!.access_token, null);
  t.equal(row!.refresh_token, null);
  t.equal((await k.introspect(pw.json.access_token)).json.active, true);
  t.equal((await k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token })).status, 200);
});

t.test('enable_token_encryption: AES-256-GCM with a key file in the security directory', async (t) => {
  const k = await startTestKeyManager(t, { conf: { apim: { oauth_config: { enable_token_encryption: true } } } });
  const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
  const [row] = rows(k.home);
  t.match(row!.access_token, /^enc:v1:/);
  t.match(row!.refresh_token, /^enc:v1:/);
  t.notOk(row!.access_token!.includes(pw.json.access_token.slice(20, 60)));
  const keyFile = path.join(k.home, 'repository/resources/security/token-encryption.generated.key');
  t.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
  t.equal((await k.introspect(pw.json.access_token)).json.active, true);
  const { TokenCodec } = await import('../../engine/keymanager/token-crypto.js');
  const codec = TokenCodec.create({ hash: false, encrypt: true, securityDir: path.dirname(keyFile) });
  t.equal(codec.reveal(row!.access_token), pw.json.access_token, 'the key in the home decrypts it');
});
