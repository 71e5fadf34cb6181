import t from 'tap';
import path from 'node:path';
import { makeHome, basic } from '../fixtures/keymanager-harness.js';
import { send, until, type Answer } from '../../bench/lib/http-client.js';
import { smallDisk } from '../fixtures/small-disk.js';
import { requireBuild, freeOffset, startSluice, waitPort } from '../fixtures/sluice-process.js';

requireBuild();

// The trial: with the store's disk full, token requests answered 500 server_error, the log got a full
// stack per failure (9,242 in 19 s), and /health/ready stayed UP while no token could be issued.

t.test('a full disk under the store: 503 temporarily_unavailable, a few log lines, /health/ready DOWN, and back when there is room', async (t) => {
  const offset = await freeOffset();
  const home = makeHome(t, { conf: { server: { offset }, sluice: { log: { level: 'info', format: 'json', console: true } } } });
  const disk = smallDisk(t, path.join(home, 'repository/database'));
  t.comment(`full disk by ${disk.how}`);
  const port = 9443 + offset;
  const p = startSluice(t, home);
  await waitPort(port);
  const auth = basic('acme-client', 'acme-secret');
  const base = `https://127.0.0.1:${port}`;
  const token = (): Promise<Answer> => send(`${base}/oauth2/token`, { form: { grant_type: 'client_credentials' }, headers: { authorization: auth } });
  const ready = (): Promise<Answer> => send(`${base}/health/ready`);
  const before = await Promise.all(Array.from({ length: 20 }, token));
  t.ok(before.every((r) => r.status === 200), 'tokens are issued while there is room');
  t.ok(await until(async () => (await ready()).status === 200, 15_000, 250), 'ready once started');
  const linesBefore = p.output().split('\n').length;

  disk.fill(p.child.pid!);
  const during: Answer[] = [];
  await Promise.all(Array.from({ length: 20 }, async () => { for (let i = 0; i < 25; i++) during.push(await token()); }));
  const statuses: Record<string, number> = {};
  for (const r of during) { const k = `${r.status} ${r.json?.error ?? r.error ?? ''}`; statuses[k] = (statuses[k] ?? 0) + 1; }
  t.ok(during.every((r) => r.status === 200 || (r.status === 503 && r.json?.error === 'temporarily_unavailable')), `only 200 or 503 temporarily_unavailable: ${JSON.stringify(statuses)}`);
  t.ok((statuses['503 temporarily_unavailable'] ?? 0) >= 400, `the full disk is answered 503: ${JSON.stringify(statuses)}`);
  const notReady = await ready();
  t.equal(notReady.status, 503, '/health/ready is DOWN while tokens cannot be issued');
  t.match(JSON.stringify(notReady.json?.reasons), /apim_db store is unavailable/, JSON.stringify(notReady.json));
  t.equal(p.child.exitCode, null, 'the node is alive');

  const logged = p.output().split('\n').slice(linesBefore - 1).filter((l) => l.startsWith('{'));
  const errors = logged.filter((l) => /"level":(50|60)/.test(l));
  t.ok(errors.length <= 4, `${errors.length} ERROR lines for ${during.length} refused requests (one when the store goes, one per window for the refusals): ${errors.map((l) => l.slice(0, 200)).join('\n')}`);
  t.notOk(errors.some((l) => /\\n\s+at /.test(l)), 'no stack trace in them');

  disk.free(p.child.pid!);
  t.ok(await until(async () => (await token()).status === 200, 15_000, 250), 'tokens are issued again once there is room');
  t.ok(await until(async () => (await ready()).status === 200, 15_000, 250), '/health/ready is UP again');
  const admin = basic('admin', 'admin');
  const known = await Promise.all(before.map((r) => send(`${base}/oauth2/introspect`, { form: { token: r.json.access_token }, headers: { authorization: admin } })));
  t.ok(known.every((r) => r.json?.active === true), 'the tokens issued before the disk filled are all still known');
  p.child.kill('SIGTERM');
  t.equal((await p.exited).code, 0, 'a SIGTERM stops cleanly');
});
