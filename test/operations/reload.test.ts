import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { parse, stringify } from 'smol-toml';
import { requireBuild, startSluice, waitPort } from '../fixtures/sluice-process.js';
import { makeHome, apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, type SeenRequest } from '../helpers/backends.js';

requireBuild();

/** GET on a keep-alive agent with one socket; says whether the socket was reused. */
function get(agent: http.Agent, url: string): Promise<{ status: number; reused: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, body }));
    });
    req.on('error', reject);
  });
}

function edit(file: string, change: (conf: Record<string, any>) => void): void {
  const conf = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
  change(conf);
  fs.writeFileSync(file, stringify(conf));
}

t.test('SIGHUP re-reads deployment.toml: live keys apply at once, the others are reported, no connection dropped', async (t) => {
  const backend = await echoBackend(t, (req, res) => {
    if (req.url?.includes('/slow')) { setTimeout(() => { res.writeHead(200).end('late'); }, 1500); return true; }
    return false;
  });
  const home = await makeHome({
    http_access_log: { enabled: false },
    apim: { analytics: { enable: false, type: 'log' }, open_tracer: { log_tracer: { enable: false } } },
    sluice: { log: { level: 'info' } },
  }, { [`${API_DIR}/live.toml`]: apiToml({ name: 'Live', context: '/live', production: backend.url, verbs: ['GET'] }) });
  t.teardown(() => home.cleanup());
  const p = startSluice(t, home.dir);
  await waitPort(home.ports.http);
  const gw = `http://127.0.0.1:${home.ports.http}`;
  const logs = path.join(home.dir, 'repository/logs');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());

  const before = await get(agent, `${gw}/live/1.0.0/a`);
  t.equal(before.status, 200);
  t.notOk(JSON.parse(before.body).headers['traceparent'], 'tracing off');
  t.notOk(fs.existsSync(path.join(logs, 'http_access.log')), 'access log off');

  const conf = path.join(home.dir, 'repository/conf/deployment.toml');
  edit(conf, (c) => {
    c['http_access_log'] = { enabled: true, useLogger: false };
    c['apim']['analytics'] = { enable: true, type: 'log' };
    c['apim']['open_tracer'] = { log_tracer: { enable: true } };
    c['sluice']['log']['level'] = 'debug';
    c['passthru_http']['io_buffer_size'] = 32768;
  });
  p.child.kill('SIGHUP');
  const reloaded = await eventually(() => home.logs().find((l) => l['msg'] === 'configuration reloaded'), 'the reload to be logged').catch((e: Error) => { throw new Error(`${e.message}\n${JSON.stringify(home.logs().filter((l) => /reload|SIGHUP/i.test(String(l['msg']))))}`); });
  t.ok((reloaded['applied'] as string[]).includes('http_access_log.enabled'), 'the access log switch applied live');
  t.ok((reloaded['applied'] as string[]).includes('apim.analytics.enable'));
  t.ok((reloaded['applied'] as string[]).includes('apim.open_tracer.log_tracer.enable'));
  t.ok((reloaded['applied'] as string[]).includes('sluice.log.level'));
  t.same(reloaded['restartRequired'], ['passthru_http.io_buffer_size'], 'a key that needs a restart is reported');
  t.ok(await eventually(() => home.logs().some((l) => l['level'] === 'warn' && /next restart/.test(String(l['msg']))), 'as a warning', 5000), 'as a warning');

  const after = await get(agent, `${gw}/live/1.0.0/b`);
  t.equal(after.status, 200);
  t.ok(after.reused, 'the same keep-alive connection serves after the reload');
  t.match((JSON.parse(after.body) as SeenRequest).headers['traceparent'], /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'tracing on at once in the io threads');
  await eventually(() => fs.existsSync(path.join(logs, 'http_access.log')) && fs.readFileSync(path.join(logs, 'http_access.log'), 'utf8').includes('/live/1.0.0/b'), 'the access line');
  await eventually(() => fs.existsSync(path.join(logs, 'analytics.log')) && fs.readFileSync(path.join(logs, 'analytics.log'), 'utf8').includes('"apiName":"Live"'), 'the analytics event');
  await eventually(() => fs.existsSync(path.join(logs, 'tracer.log')) && fs.readFileSync(path.join(logs, 'tracer.log'), 'utf8').includes('"kind":"SERVER"'), 'the span');
  t.notOk(fs.readFileSync(path.join(logs, 'http_access.log'), 'utf8').includes('/live/1.0.0/a'), 'calls before the reload are not logged');

  // debug now: a malformed request on a servlet port (main thread) and a client leaving (io thread) are logged.
  await new Promise<void>((resolve) => { const s = net.connect(home.ports.servletHttp, '127.0.0.1', () => s.end('NOT HTTP\r\n\r\n')); s.on('close', () => resolve()); s.on('error', () => resolve()); s.resume(); });
  await eventually(() => home.logs().some((l) => l['level'] === 'debug' && l['msg'] === 'bad request on a servlet port'), 'a main-thread debug line');
  const abort = http.get(`${gw}/live/1.0.0/slow`);
  abort.on('error', () => {});
  setTimeout(() => abort.destroy(), 200);
  await eventually(() => home.logs().some((l) => l['level'] === 'debug' && String(l['thread']).startsWith('io-')), 'an io-thread debug line');

  // A file that does not load: refused, the running configuration stays.
  fs.writeFileSync(conf, fs.readFileSync(conf, 'utf8') + '\n[broken\n');
  p.child.kill('SIGHUP');
  await eventually(() => home.logs().some((l) => /reload refused/.test(String(l['msg']))), 'the refusal');
  const still = await get(agent, `${gw}/live/1.0.0/c`);
  t.equal(still.status, 200);
  t.ok(still.reused, 'still the same connection');
  t.equal(p.child.exitCode, null, 'still running');
  p.child.kill('SIGTERM');
  const exit = await p.exited;
  t.equal(exit.code, 0, `stopped cleanly ${JSON.stringify(exit)} ${p.output().slice(-1500)}`);
});
