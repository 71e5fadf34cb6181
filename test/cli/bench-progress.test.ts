import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import { Writable } from 'node:stream';
import { requireBuild } from '../fixtures/sluice-process.js';
import { Progress, formatSeconds } from '../../bench/lib/progress.js';
import { cli } from './helpers.js';

requireBuild();

t.test('sluice bench prints a progress line a second on stderr and the result on stdout', async (t) => {
  let served = 0;
  const server = http.createServer((_req, res) => { served++; res.end('ok'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  const r = await cli(['bench', '--url', url, '--duration', '3', '--connections', '2']);
  t.equal(r.status, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => /^\s*\d+\/3 s\s+\d+ req\/s {2}total \d+ {2}errors 0 {2}non-2xx 0 {2}\d+ s left$/.test(l));
  t.ok(lines.length >= 2 && lines.length <= 3, `one line a second (${lines.length}): ${r.stderr}`);
  t.match(lines[0], /^1\/3 s/);
  const lastTotal = Number(/total (\d+)/.exec(lines.at(-1)!)![1]);
  t.ok(lastTotal > 0 && lastTotal <= served, 'the running total counts what the server served');
  t.match(r.stdout, /^url {10}http:\/\/127\.0\.0\.1:\d+\/\nconnections {2}2, 3 s\nrequests\/s/);
  t.notMatch(r.stdout, /req\/s {2}total/, 'progress stays off stdout');
});

t.test('sluice bench counts non-2xx answers as they come, and exits 1', async (t) => {
  const server = http.createServer((_req, res) => { res.statusCode = 503; res.end('no'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const r = await cli(['bench', '--url', `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, '--duration', '2', '--connections', '1']);
  t.equal(r.status, 1);
  t.match(r.stderr, /non-2xx [1-9]\d*/);
});

t.test('npm run bench\'s progress: n/N and the time left, from the planned length until loads have finished', async (t) => {
  let out = '';
  const sink = new Writable({ write(c, _e, cb) { out += String(c); cb(); } });
  const p = new Progress(12, 12, sink);
  p.next('first load');
  t.equal(out, '[ 1/12  2m 24s left] first load\n', '12 loads of 12 s planned');
  p.finished();
  p.next('second load');
  t.match(out.split('\n')[1], /^\[ 2\/12 {2}(\d+m \d\ds|\d+s) left\] second load$/);
  t.equal(formatSeconds(59), '59s');
  t.equal(formatSeconds(61), '1m 01s');
  t.equal(formatSeconds(0), '0s');
});
