import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';
import { ROOT } from '../fixtures/sluice-process.js';

const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

t.test('format = "json": level names, ISO-8601 times, service and version on every line, main and io threads', async (t) => {
  // A backend that never answers: the client leaving is logged (debug) by the io thread.
  const silent = await echoBackend(t, () => true);
  const s = await startSluice(t, { sluice: { log: { format: 'json', level: 'debug' } } }, {
    [`${API_DIR}/slow.toml`]: apiToml({ name: 'Slow', context: '/slow', production: silent.url, verbs: ['GET'] }),
  });
  await request(s.url('/slow/1.0.0/x'), { timeoutMs: 300 }).catch(() => undefined);
  const lines = await eventually(() => {
    const all = s.home.logs();
    return all.some((l) => String(l['thread']).startsWith('io-')) ? all : null;
  }, 'an io thread line');
  t.ok(lines.length > 5);
  for (const l of lines) {
    t.match(l['level'], /^(trace|debug|info|warn|error|fatal)$/, `level ${JSON.stringify(l['level'])} is a name`);
    t.match(l['time'], ISO, `time ${JSON.stringify(l['time'])} is ISO 8601 UTC`);
    t.equal(l['service'], 'sluice');
    t.equal(l['version'], VERSION);
  }
  t.ok(lines.some((l) => l['thread'] === 'main'));
});

t.test('format = "text": ISO time, then the level in capitals', async (t) => {
  const s = await startSluice(t, { sluice: { log: { format: 'text', level: 'info' } } });
  const file = path.join(s.home.dir, 'repository/logs/sluice.log');
  const text = await eventually(() => { const x = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''; return /gateway listening|listening/.test(x) ? x : null; }, 'a text line');
  for (const line of text.split('\n').filter(Boolean)) t.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) /, line.slice(0, 80));
  t.notMatch(text, /service=|version=/, 'the base fields stay out of text lines');
});

t.test('[http_access_log] format = "json": one JSON object per call, credentials masked, hostile values cannot forge a line', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { http_access_log: { enabled: true, format: 'json' } }, {
    [`${API_DIR}/acc.toml`]: apiToml({ name: 'Acc', context: '/acc', production: backend.url, verbs: ['GET', 'POST'] }),
  });
  const evil = 'agent"}\t{"status":200,"x":"\\';
  t.equal((await request(s.url('/acc/1.0.0/a?access_token=tok-secret-19&q=1'), { headers: { 'user-agent': evil, referer: 'http://r.example/' } })).status, 200);
  t.equal((await request(s.url('/acc/1.0.0/b'), { method: 'POST', body: 'hello' })).status, 200);
  await request(`http://127.0.0.1:${s.home.ports.servletHttp}/health/live`);
  const file = path.join(s.home.dir, 'repository/logs/http_access.log');
  const recs = await eventually(() => {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    return lines.length >= 3 ? lines : null;
  }, 'three access records');
  const parsed = recs.map((l) => JSON.parse(l) as Record<string, unknown>);
  t.equal(parsed.length, 3, 'one line per call (the hostile user agent did not split or add one)');
  const a = parsed.find((r) => String(r['path']).startsWith('/acc/1.0.0/a'))!;
  t.match(a, { client_ip: '127.0.0.1', method: 'GET', protocol: 'HTTP/1.1', status: 200, api: 'Acc:1.0.0', error_code: null, port: 'gateway', user_agent: evil, referer: 'http://r.example/' });
  t.match(a['time'], ISO);
  t.equal(typeof a['duration_ms'], 'number');
  t.equal(a['path'], '/acc/1.0.0/a?access_token=********&q=1', 'credential query parameters masked');
  t.notOk(fs.readFileSync(file, 'utf8').includes('tok-secret-19'));
  const b = parsed.find((r) => r['method'] === 'POST')!;
  t.ok(Number(b['bytes']) > 0);
  const h = parsed.find((r) => r['port'] === 'servlet')!;
  t.match(h, { path: '/health/live', status: 200, api: null });
});

t.test('the default access log format stays Apache combined', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { http_access_log: { enabled: true } }, {
    [`${API_DIR}/acc.toml`]: apiToml({ name: 'Acc', context: '/acc', production: backend.url, verbs: ['GET'] }),
  });
  await request(s.url('/acc/1.0.0/a'));
  const file = path.join(s.home.dir, 'repository/logs/http_access.log');
  const line = await eventually(() => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes('/acc/')) : undefined), 'a line');
  t.match(line, /^127\.0\.0\.1 - - \[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET \/acc\/1\.0\.0\/a HTTP\/1\.1" 200 \d+ "-" "-" [\d.]+ Acc:1\.0\.0 - -$/);
});
