import t from 'tap';
import { makeHome, basic } from '../fixtures/keymanager-harness.js';
import { send, until, type Answer } from '../../bench/lib/http-client.js';
import { startPostgres } from '../fixtures/postgres.js';
import { requireBuild, freeOffset, startSluice, waitPort } from '../fixtures/sluice-process.js';

requireBuild();

// The trial: PostgreSQL sessions terminated under token and refresh load aborted the whole node
// (exit 134, "Unhandled 'error' event ... read ECONNRESET at Client._handleErrorEvent") in 4 of 6 tries: a
// pool client checked out for a transaction had no 'error' listener. The node runs as its own process here,
// so that such a crash is seen as what it is.

t.test('PostgreSQL sessions killed and the server crashed under token load: the node stays up, answers 503 temporarily_unavailable, and serves again', async (t) => {
  const pgs = await startPostgres(t);
  const url = await pgs.createDatabase('km_loss');
  const offset = await freeOffset();
  const home = makeHome(t, { conf: {
    server: { offset },
    database: { apim_db: { type: 'postgre', url, username: pgs.user, password: pgs.password, pool_options: { maxActive: 8, maxWait: 2000 } } },
    sluice: { log: { level: 'warn' } },
  } });
  const port = 9443 + offset;
  const p = startSluice(t, home);
  await waitPort(port);
  const auth = basic('acme-client', 'acme-secret');
  const base = `https://127.0.0.1:${port}`;
  const token = (form: Record<string, string>): Promise<Answer> => send(`${base}/oauth2/token`, { form, headers: { authorization: auth } });
  const ready = (): Promise<Answer> => send(`${base}/health/ready`);
  t.equal((await token({ grant_type: 'client_credentials' })).status, 200, p.output());

  const statuses: Record<string, number> = {};
  const odd: string[] = [];
  const count = (r: Answer): void => {
    const key = r.status === 200 ? '200' : `${r.status} ${r.json?.error ?? r.error ?? ''}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
    if ((r.status === 0 || r.status >= 500) && r.json?.error !== 'temporarily_unavailable' && odd.length < 5) odd.push(`${r.status} ${JSON.stringify(r.json) ?? r.error}`);
  };
  let stop = false;
  const loops = Array.from({ length: 16 }, async () => {
    while (!stop) {
      const a = await token({ grant_type: 'password', username: 'admin', password: 'admin' });
      count(a);
      let rt: string | undefined = a.json?.refresh_token;
      for (let j = 0; j < 5 && rt && !stop; j++) {
        const r = await token({ grant_type: 'refresh_token', refresh_token: rt });
        count(r);
        rt = r.json?.refresh_token;
      }
      if (a.status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
  });
  const alive = (): boolean => p.child.exitCode === null && p.child.signalCode === null;

  // 1. Sessions terminated every 400 ms, 12 times.
  let killed = 0;
  for (let i = 0; i < 12 && alive(); i++) {
    await new Promise((r) => setTimeout(r, 400));
    const r = await pgs.query("SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'sluice'");
    killed += Number(r.rows[0].n);
  }
  t.ok(killed >= 12, `${killed} sessions terminated under load`);
  t.ok(alive(), `the node is alive after the terminations (${p.output().slice(-800)})`);

  // 2. The server gone (pg_ctl stop -m immediate) while the load goes on.
  pgs.crash();
  await new Promise((r) => setTimeout(r, 2500));
  t.ok(alive(), `the node is alive with the database down (${p.output().slice(-800)})`);
  const down = await token({ grant_type: 'client_credentials' });
  t.equal(down.status, 503, 'a token request answers 503 while the database is gone');
  t.equal(down.json?.error, 'temporarily_unavailable');
  const notReady = await ready();
  t.equal(notReady.status, 503, '/health/ready is DOWN while tokens cannot be issued');
  t.match(JSON.stringify(notReady.json?.reasons), /store/, `the reason names the store: ${JSON.stringify(notReady.json)}`);

  // 3. The server back: tokens again, readiness UP again.
  pgs.start();
  t.ok(await until(async () => (await token({ grant_type: 'client_credentials' })).status === 200, 15_000, 250), 'tokens are served again once PostgreSQL is back');
  t.ok(await until(async () => (await ready()).status === 200, 10_000, 250), '/health/ready is UP again');
  stop = true;
  await Promise.all(loops);
  t.ok(alive(), 'the node is alive at the end');
  t.same(odd, [], `no answer other than 200, a client error or 503 temporarily_unavailable: ${JSON.stringify(statuses)}`);
  t.ok((statuses['200'] ?? 0) > 100, `tokens were issued throughout: ${JSON.stringify(statuses)}`);
  p.child.kill('SIGTERM');
  t.equal((await p.exited).code, 0, 'a SIGTERM stops cleanly');
});
