import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { requireBuild, startSluice, waitPort } from '../fixtures/sluice-process.js';
import { makeHome, eventually } from '../helpers/home.js';
import { cli } from './helpers.js';

requireBuild();

const pidFile = (home: string): string => path.join(home, 'repository/sluice.pid');

t.test('sluice start writes repository/sluice.pid; reload sends SIGHUP after checking the file; stop drains and ends the node', async (t) => {
  const home = await makeHome({ sluice: { log: { level: 'info' } } });
  t.teardown(() => home.cleanup());
  const p = startSluice(t, home.dir);
  await waitPort(home.ports.http);
  await eventually(() => fs.existsSync(pidFile(home.dir)), 'the pid file');
  t.equal(fs.readFileSync(pidFile(home.dir), 'utf8'), `${p.child.pid}\n`, 'the pid file holds the node\'s pid and a newline');

  // A second node on the same home is refused: the pid file names a live Sluice.
  const second = await cli(['start', '--home', home.dir]);
  t.equal(second.status, 1);
  t.match(second.stderr, new RegExp(`another Sluice \\(pid ${p.child.pid}\\) runs with this home`));

  // reload: a valid change is signalled and applied.
  const conf = path.join(home.dir, 'repository/conf/deployment.toml');
  const good = fs.readFileSync(conf, 'utf8');
  fs.writeFileSync(conf, good.replace(/level = "info"/, 'level = "debug"'));
  const r1 = await cli(['reload', '--home', home.dir]);
  t.equal(r1.status, 0, r1.stderr);
  t.match(r1.stdout, new RegExp(`SIGHUP\\) sent to pid ${p.child.pid}`));
  await eventually(() => home.logs().some((l) => l['msg'] === 'configuration reloaded'), 'the reload in the log');

  // reload: a file that does not load is reported and no signal is sent.
  const reloads = (): number => home.logs().filter((l) => /SIGHUP/.test(String(l['msg']))).length;
  const before = reloads();
  fs.writeFileSync(conf, `${good}\n[server]\noffset = "many"\n`);
  const r2 = await cli(['reload', '--home', home.dir]);
  t.equal(r2.status, 2);
  t.match(r2.stderr, /deployment\.toml:\d+/);
  t.match(r2.stderr, /not reloaded: the configuration is not valid/);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(reloads(), before, 'no SIGHUP reached the node');
  fs.writeFileSync(conf, good);

  const s = await cli(['stop', '--home', home.dir]);
  t.equal(s.status, 0, s.stderr);
  t.match(s.stdout, new RegExp(`stopped \\(pid ${p.child.pid}\\)`));
  const exit = await p.exited;
  t.equal(exit.code, 0, 'the node exited cleanly');
  t.notOk(fs.existsSync(pidFile(home.dir)), 'the node removed its pid file');
  t.match(p.output() + home.logs().map((l) => String(l['msg'])).join('\n'), /stopping: finishing calls in flight/);

  const again = await cli(['stop', '--home', home.dir]);
  t.equal(again.status, 3, 'nothing runs: exit 3');
  t.match(again.stderr, /no Sluice runs with the home .*no pid file/);
  const rl = await cli(['reload', '--home', home.dir]);
  t.equal(rl.status, 3);
});

t.test('a stale pid file (the process is gone, or the pid now belongs to another program) is said and removed; start replaces it', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  // A process that has exited.
  const gone = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => gone.once('exit', r));
  fs.writeFileSync(pidFile(home.dir), `${gone.pid}\n`);
  const s1 = await cli(['stop', '--home', home.dir]);
  t.equal(s1.status, 3);
  t.match(s1.stderr, new RegExp(`process ${gone.pid} is not running; the stale pid file .* was removed`));
  t.notOk(fs.existsSync(pidFile(home.dir)));

  // A live process that is not Sluice: never signalled.
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  t.teardown(() => { other.kill('SIGKILL'); });
  fs.writeFileSync(pidFile(home.dir), `${other.pid}\n`);
  const s2 = await cli(['stop', '--home', home.dir]);
  t.equal(s2.status, 3);
  t.match(s2.stderr, /is not Sluice \(the pid was reused\)/);
  t.equal(other.exitCode, null, 'the other program still runs');
  t.equal(other.signalCode, null);

  fs.writeFileSync(pidFile(home.dir), 'garbage');
  const s3 = await cli(['reload', '--home', home.dir]);
  t.equal(s3.status, 3);
  t.match(s3.stderr, /does not hold a process id/);

  fs.writeFileSync(pidFile(home.dir), `${other.pid}\n`);
  const p = startSluice(t, home.dir);
  await waitPort(home.ports.http);
  await eventually(() => fs.readFileSync(pidFile(home.dir), 'utf8') === `${p.child.pid}\n`, 'the pid file taken over');
  t.match(p.output(), /replaced a stale pid file/);
  const s4 = await cli(['stop', '--home', home.dir]);
  t.equal(s4.status, 0);
  t.equal((await p.exited).code, 0);
});

t.test('sluice stop gives up after --timeout with exit 1 and says how to end the process', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  // A stand-in that looks like a Sluice (its program is named sluice.js and it was given start) and ignores SIGTERM.
  const dir = fs.mkdtempSync(path.join(home.dir, 'stubborn-'));
  const script = path.join(dir, 'sluice.js');
  fs.writeFileSync(script, "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);\n");
  const stubborn = spawn(process.execPath, [script, 'start']);
  t.teardown(() => { stubborn.kill('SIGKILL'); });
  await new Promise((r) => setTimeout(r, 300));
  fs.writeFileSync(pidFile(home.dir), `${stubborn.pid}\n`);
  const s = await cli(['stop', '--home', home.dir, '--timeout', '1']);
  t.equal(s.status, 1);
  t.match(s.stderr, new RegExp(`pid ${stubborn.pid} still runs after 1 s.*kill -KILL ${stubborn.pid}`));
  t.equal(stubborn.exitCode, null);
});
