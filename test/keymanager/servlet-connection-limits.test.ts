// The servlet ports (key manager, admin API) cannot take the process's file descriptors from the gateway:
// a connection cap per port and a bounded time for a slow request (issue 18 item 9). The attack: thousands
// of half-sent POSTs to 9763 exhausted the descriptors and the gateway answered 503 (EMFILE). Here the
// process runs under `ulimit -n 512` and gets 600 of them.
import t from 'tap';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { requireBuild, ROOT, waitPort } from '../fixtures/sluice-process.js';
import { makeHome, apiToml, API_DIR, eventually } from '../helpers/home.js';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request } from '../helpers/backends.js';
import { httpsPost, basic } from '../helpers/secured.js';
import { loadConfig } from '../../conf/loader.js';
import { servletView } from '../../conf/typed-config.js';
import { fdBudget, openFileLimit } from '../../engine/runtime/fd-budget.js';

requireBuild();

const HALF_SENT = 'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\ngrant_type=';

/** A connection that sends a request head and the start of its body, then nothing. */
function halfSentPost(port: number): { socket: net.Socket; state: { answered: string; closed: boolean; connected: boolean } } {
  const state = { answered: '', closed: false, connected: false };
  const socket = net.connect(port, '127.0.0.1', () => { state.connected = true; socket.write(HALF_SENT); });
  socket.on('data', (d) => { state.answered += d.toString('latin1'); });
  socket.on('error', () => {});
  socket.on('close', () => { state.closed = true; });
  return { socket, state };
}

t.test('600 half-sent POSTs to the servlet HTTP port under ulimit -n 512: the port holds its maxConnections, the rest are closed at accept, the gateway and the token endpoint keep serving', async (t) => {
  const be = await echoBackend(t);
  const home = await makeHome({
    transport: { http: { properties: { maxConnections: 100 } }, https: { properties: { maxConnections: 100 } } },
    sluice: { servlet: { request_timeout: '120s', headers_timeout: '60s' } },
  }, { [`${API_DIR}/open.toml`]: apiToml({ name: 'Open', context: '/open', production: be.url, verbs: ['GET'] }) });
  t.teardown(() => home.cleanup());
  const child = spawn('bash', ['-c', `ulimit -n 512 && exec "${process.execPath}" "${path.join(ROOT, 'bin/sluice.js')}" start --home "${home.dir}"`], { stdio: 'ignore' });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  await waitPort(home.ports.http, 40000);
  await waitPort(home.ports.servletHttp, 40000);
  t.equal((await request(`http://127.0.0.1:${home.ports.http}/open/1.0.0/x`)).status, 200, 'control: the gateway serves');

  const attack = Array.from({ length: 600 }, () => halfSentPost(home.ports.servletHttp));
  t.teardown(() => { for (const a of attack) a.socket.destroy(); });
  const dropped = (): number => attack.filter((a) => a.state.closed && a.state.answered === '').length;
  // Without a cap the port takes descriptors until there are none (the old behaviour): wait for the cap's
  // drops, but look at the gateway either way.
  const settled = await eventually(() => dropped() >= 500, 'connections beyond the cap to be closed', 30000).then(() => true, () => false);
  const call = await request(`http://127.0.0.1:${home.ports.http}/open/1.0.0/x`);
  t.equal(call.status, 200, `the gateway still serves a call through to its backend (${call.error ?? call.status})`);
  t.ok(settled, 'the connections beyond maxConnections were closed at accept');
  t.equal(dropped(), 500, 'exactly those');
  t.equal(attack.filter((a) => !a.state.closed).length, 100, 'the port holds its 100');
  const tok = await httpsPost(`https://127.0.0.1:${home.ports.servletHttps}/oauth2/token`, { grant_type: 'password', username: 'admin', password: 'admin' }, { authorization: basic('x', 'y') });
  t.equal(tok.status, 401, 'the servlet HTTPS port (its own cap) still answers');
  const warned = home.logs().filter((l) => /maxConnections/.test(String(l['msg'])));
  t.ok(warned.some((l) => /closed at accept/.test(String(l['msg']))), 'the log says the port is at its cap');
  t.notOk(warned.some((l) => /file descriptors/.test(String(l['msg']))), '100 + 100 fit under 512 descriptors: no start warning');

  for (const a of attack) a.socket.destroy();
  await eventually(async () => (await request(`http://127.0.0.1:${home.ports.servletHttp}/api/health-check/v1.0/health`)).status > 0, 'the HTTP port to take connections again', 20000);
  child.kill('SIGTERM');
});

t.test('a slow request body gets 408 when [sluice.servlet] request_timeout passes, and frees its connection', async (t) => {
  const s = await startSluice(t, { sluice: { servlet: { request_timeout: '1s', headers_timeout: '1s' } } });
  const slow = halfSentPost(s.home.ports.servletHttp);
  t.teardown(() => slow.socket.destroy());
  await eventually(() => slow.state.closed, 'the slow request to be ended', 15000);
  t.match(slow.state.answered, /^HTTP\/1\.1 408 /, 'answered 408');
  t.match(slow.state.answered, /"error":"request_timeout"/, 'with a JSON body');
  t.equal((await request(`http://127.0.0.1:${s.home.ports.servletHttp}/api/health-check/v1.0/health`)).status, 200, 'the port serves the next client');
});

t.test('the defaults: a request has 20 s, its head 10 s, each servlet port 1024 connections; a start warning when they do not fit ulimit -n', async (t) => {
  const home = await makeHome({}, {}, { fresh: true });
  t.teardown(() => home.cleanup());
  const config = loadConfig(home.dir);
  const v = servletView(config);
  t.equal(v.requestTimeout, 20_000);
  t.equal(v.headersTimeout, 10_000);
  t.equal(v.http.maxConnections, 1024);
  t.equal(v.https.maxConnections, 1024);
  t.same(fdBudget(config, 20_000).problems, [], 'they fit 20,000 descriptors');
  const tight = fdBudget(config, 1024).problems;
  t.equal(tight.length, 1, 'not 1,024');
  t.match(tight[0], /2048 connections .* more than half of the 1024 file descriptors/);
  t.equal(openFileLimit('Limit                     Soft Limit           Hard Limit           Units\nMax open files            4096                 8192                 files\n'), 4096, 'the soft limit is read from /proc/self/limits');
});
