import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { startTestKeyManager, writeApp, waitFor, ACME_APP, OTHER_APP } from '../fixtures/keymanager-harness.js';
import { hashSecret } from '../../engine/keymanager/secret-hash.js';
import { parseApplicationFile, ApplicationFileError } from '../../engine/keymanager/application-file.js';

const app = (name: string, id: string, secret: string, extra = '') => `name = "${name}"
owner = "carol"
[[keys]]
client_id = "${id}"
client_secret = "${secret}"
${extra}`;

t.test('applications are deployed at start, with secrets hashed in the store', async (t) => {
  const k = await startTestKeyManager(t);
  const list = await k.km.store.applications.list();
  t.same(list.map((a) => a.name), ['AcmeApp', 'AcmeOther']);
  const acme = list[0]!;
  t.equal(acme.source, 'repository/deployment/server/applications/acme-app.toml');
  t.same(acme.subscriptions, [{ api: 'AcmeSecure:1.0.0', throttlingPolicy: 'Gold', state: 'UNBLOCKED' }]);
  for (const key of acme.keys) t.match(key.clientSecretHash, /^scrypt\$16384\$8\$1\$/);
  const db = fs.readFileSync(path.join(k.home, 'repository/database/WSO2AM_DB.sqlite-wal')).toString('latin1') + fs.readFileSync(path.join(k.home, 'repository/database/WSO2AM_DB.sqlite')).toString('latin1');
  t.notOk(db.includes('acme-secret'), 'no clear secret in the database files');
});

t.test('hot reload: a new file, a changed secret, a removed file (its tokens revoked)', async (t) => {
  const k = await startTestKeyManager(t, { conf: { sluice: { keymanager: { applications_rescan_interval: '1h' } } } });
  t.equal((await k.token({ grant_type: 'client_credentials' }, 'new-client', 's1')).status, 401);
  writeApp(k.home, 'new.toml', app('NewApp', 'new-client', 's1'));
  await waitFor(async () => (await k.token({ grant_type: 'client_credentials' }, 'new-client', 's1')).status === 200, 5000, 'the new application');
  t.ok(k.allEvents.some((e) => e.type === 'registry.changed'));
  const tok = (await k.token({ grant_type: 'client_credentials' }, 'new-client', 's1')).json.access_token;
  writeApp(k.home, 'new.toml', app('NewApp', 'new-client', 's2'));
  await waitFor(async () => (await k.token({ grant_type: 'client_credentials' }, 'new-client', 's2')).status === 200, 5000, 'the new secret');
  t.equal((await k.token({ grant_type: 'client_credentials' }, 'new-client', 's1')).status, 401, 'the old secret is refused');
  t.equal((await k.introspect(tok)).json.active, true, 'a changed secret keeps issued tokens');
  fs.rmSync(path.join(k.home, 'repository/deployment/server/applications/new.toml'));
  await waitFor(async () => (await k.token({ grant_type: 'client_credentials' }, 'new-client', 's2')).status === 401, 5000, 'the removal');
  t.equal((await k.introspect(tok)).json.active, false, 'tokens of a removed application are revoked');
  t.ok(k.events.some((e) => e.consumerKey === 'new-client'), 'and the gateways are told');
  t.notOk(await k.km.store.applications.get('NewApp'));
});

t.test('a bad file keeps the previous version and says file, line and column', async (t) => {
  const k = await startTestKeyManager(t, { conf: { sluice: { keymanager: { applications_rescan_interval: '1h' } } } });
  writeApp(k.home, 'acme-other.toml', 'name = "AcmeOther"\n[[keys]\nclient_id = "x"\n');
  await waitFor(() => k.logs.lines.some((l) => /application file not deployed/.test(String(l['msg']))), 5000, 'the error log');
  const line = k.logs.lines.find((l) => /application file not deployed/.test(String(l['msg'])))!;
  t.equal(line['file'], 'repository/deployment/server/applications/acme-other.toml');
  t.equal(line['line'], 2);
  t.type(line['column'], 'number');
  t.match(line['msg'], /acme-other\.toml:2:\d+: TOML syntax error/);
  t.match(line['msg'], /keeps its previous version/);
  t.equal((await k.token({ grant_type: 'client_credentials' }, 'acme-other', 'acme-other-secret')).status, 200, 'the previous version still works');
  writeApp(k.home, 'acme-other.toml', OTHER_APP.replace('token_type = "JWT"', 'token_type = "PASETO"'));
  await waitFor(() => k.logs.lines.some((l) => /token_type: must be "JWT" or "OPAQUE"/.test(String(l['msg']))), 5000, 'the validation error');
  const v = k.logs.lines.find((l) => /token_type: must be/.test(String(l['msg'])))!;
  t.equal(v['line'], 4, 'the line of the bad field');
  t.equal((await k.token({ grant_type: 'client_credentials' }, 'acme-other', 'acme-other-secret')).status, 200);
});

t.test('conflicts: a second file with the same application name or client id is refused', async (t) => {
  const k = await startTestKeyManager(t, { conf: { sluice: { keymanager: { applications_rescan_interval: '1h' } } } });
  writeApp(k.home, 'zz-dup.toml', app('AcmeApp', 'dup-client', 'x'));
  await waitFor(() => k.logs.lines.some((l) => /already defined by repository\/deployment\/server\/applications\/acme-app\.toml/.test(String(l['msg']))), 5000, 'the name conflict');
  writeApp(k.home, 'zz-dup2.toml', app('Dup2', 'acme-client', 'x'));
  await waitFor(() => k.logs.lines.some((l) => /client_id "acme-client" already belongs to application "AcmeApp"/.test(String(l['msg']))), 5000, 'the client id conflict');
  t.equal((await k.token({ grant_type: 'client_credentials' })).status, 200, 'the first owner keeps its application');
});

t.test('client_secret_hash, periodic rescan, and files deleted while stopped', async (t) => {
  const hash = await hashSecret('hashed-secret');
  const k = await startTestKeyManager(t, {
    conf: { sluice: { keymanager: { applications_rescan_interval: '200ms' } } },
    apps: { 'acme-app.toml': ACME_APP, 'h.toml': `name = "Hashed"\n[[keys]]\nclient_id = "h-client"\nclient_secret_hash = "${hash}"\n` },
  });
  t.equal((await k.token({ grant_type: 'client_credentials' }, 'h-client', 'hashed-secret')).status, 200);
  k.km.applications['watcher']?.close();
  writeApp(k.home, 'late.toml', app('Late', 'late-client', 'l'));
  await waitFor(async () => (await k.token({ grant_type: 'client_credentials' }, 'late-client', 'l')).status === 200, 5000, 'the periodic rescan');
  await k.stop();
  fs.rmSync(path.join(k.home, 'repository/deployment/server/applications/late.toml'));
  const k2 = await startTestKeyManager(t, { home: k.home });
  t.notOk(await k2.km.store.applications.get('Late'), 'removed at start: its file is gone');
  t.ok(await k2.km.store.applications.get('Hashed'));
});

t.test('parseApplicationFile: every field and its errors', async (t) => {
  const good = parseApplicationFile(ACME_APP + 'color = "red"\n', 'a.toml', 'admin');
  t.equal(good.keys.length, 2);
  t.match(good.warnings[0], /a\.toml:\d+: unknown field "color"/);
  const defaults = parseApplicationFile('name = "D"\n[[keys]]\nclient_id = "d"\nclient_secret = "s"\n', 'd.toml', 'root');
  t.same({ owner: defaults.owner, tier: defaults.throttlingPolicy, type: defaults.tokenType, grants: defaults.keys[0]!.grantTypes, kt: defaults.keys[0]!.keyType },
    { owner: 'root', tier: 'Unlimited', type: 'JWT', grants: ['client_credentials', 'password', 'refresh_token'], kt: 'PRODUCTION' });
  const bad: [string, RegExp][] = [
    ['owner = "x"\n', /name: is required/],
    ['name = 3\n', /name: must be a string, found a number/],
    ['name = "A"\n[[keys]]\nclient_id = "a"\n', /keys\[0\]: needs client_secret or client_secret_hash/],
    ['name = "A"\n[[keys]]\nclient_id = "a"\nclient_secret = "s"\nclient_secret_hash = "h"\n', /has both/],
    ['name = "A"\n[[keys]]\nclient_id = "a"\nclient_secret_hash = "plain"\n', /is not a scrypt hash/],
    ['name = "A"\n[[keys]]\nclient_id = "a b"\nclient_secret = "s"\n', /client_id: may hold only/],
    ['name = "A"\n[[keys]]\nclient_id = "a"\nclient_secret = "s"\n[[keys]]\nclient_id = "b"\nclient_secret = "s"\n', /a second PRODUCTION key/],
    ['name = "A"\n[[keys]]\nkey_type = "TEST"\nclient_id = "a"\nclient_secret = "s"\n', /key_type: must be "PRODUCTION" or "SANDBOX"/],
    ['name = "A"\n[[keys]]\nclient_id = "a"\nclient_secret = "s"\nscopes = "x"\n', /scopes: must be a list of strings/],
    ['name = "A"\n[[subscriptions]]\napi = "NoVersion"\n', /api: must be "name:version"/],
    ['name = "A"\n[[subscriptions]]\napi = "A:1"\nstate = "MAYBE"\n', /state: must be one of/],
    ['name = "A"\nkeys = 3\n', /keys: must be written as \[\[keys\]\]/],
  ];
  for (const [text, re] of bad) {
    try {
      parseApplicationFile(text, 'x.toml', 'admin');
      t.fail(`accepted: ${text}`);
    } catch (err) {
      t.type(err, ApplicationFileError);
      t.match((err as Error).message, re);
    }
  }
});
