import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';

const SECRETS = ['qs-secret-6f1d', 'bearer-secret-93ab', 'cookie-secret-71c2', 'apikey-secret-0d4e'];

/** The value of one Prometheus sample, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && line !== name && !line.startsWith(name + ' ')) continue;
    const m = /^([^{ ]+)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const p of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[p[1]!] = p[2]!;
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

t.test('known calls: Prometheus series, one access log line each, analytics events, no credential anywhere', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, {
    http_access_log: { enabled: true, useLogger: false },
    apim: { analytics: { enable: true, type: 'log', properties: { send_headers: true, build_response_message: true } } },
  }, {
    [`${API_DIR}/metered.toml`]: apiToml({ name: 'Metered', context: '/metered', production: `${backend.url}/m`, verbs: ['GET', 'POST'] }),
    [`${API_DIR}/blocked.toml`]: apiToml({ name: 'Blocked', context: '/blocked', production: backend.url, state: 'BLOCKED', verbs: ['GET'] }),
    [`${API_DIR}/dead.toml`]: apiToml({ name: 'Dead', context: '/dead', production: 'http://127.0.0.1:1/x', verbs: ['GET'] }),
  });
  const r1 = await request(s.url(`/metered/1.0.0/a?access_token=${SECRETS[0]}&q=1`), {
    headers: { authorization: `Bearer ${SECRETS[1]}`, cookie: `sid=${SECRETS[2]}`, apikey: SECRETS[3]!, 'user-agent': 'test-agent/1.0', referer: 'http://ref.example/p' },
  });
  t.equal(r1.status, 200);
  const r2 = await request(s.url('/metered/1.0.0/b'), { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
  t.equal(r2.status, 200);
  t.equal((await request(s.url('/nowhere/at/all'))).status, 404);
  t.equal(faultOf(await request(s.url('/blocked/1.0.0/x')))?.code, 700700);
  t.equal(faultOf(await request(s.url('/dead/1.0.0/x')))?.code, 101503);

  // ---- metrics: GET /metrics on the servlet HTTP port
  const m = await request(`http://127.0.0.1:${s.home.ports.servletHttp}/metrics`);
  t.equal(m.status, 200);
  t.match(m.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const text = m.text;
  t.equal(sample(text, 'sluice_gateway_requests_total', { api: 'Metered', version: '1.0.0', status: '200', code: '' }), 2, 'requests by API and status, no error code');
  t.equal(sample(text, 'sluice_gateway_requests_total', { api: '-', status: '404', code: '404' }), 1, 'a call to no API');
  t.equal(sample(text, 'sluice_gateway_requests_total', { api: 'Blocked', status: '503', code: '700700' }), 1, 'status and error code are two labels');
  t.equal(sample(text, 'sluice_gateway_faults_total', { api: 'Blocked', code: '700700', kind: 'rejected' }), 1, 'rejected calls by fault code');
  t.equal(sample(text, 'sluice_gateway_faults_total', { api: '-', code: '404', kind: 'rejected' }), 1);
  t.equal(sample(text, 'sluice_gateway_faults_total', { api: 'Dead', code: '101503', kind: 'other' }), 1, 'a backend failure is not a rejection');
  t.equal(sample(text, 'sluice_gateway_response_bytes_total', { api: 'Metered', version: '1.0.0' }), r1.text.length + r2.text.length, 'response body bytes');
  t.equal(sample(text, 'sluice_gateway_request_bytes_total', { api: 'Metered', version: '1.0.0' }), 5, 'request body bytes (the POST\'s "hello")');
  t.equal(sample(text, 'sluice_gateway_transport_errors_total', { code: '101503', base: '101503', state: 'REQUEST_READY' }), 1, 'transport errors by code and protocol state');
  t.match(text, /# TYPE sluice_gateway_request_duration_seconds histogram/);
  t.equal(sample(text, 'sluice_gateway_request_duration_seconds_count', { api: 'Metered', version: '1.0.0' }), 2, 'latency histogram');
  t.equal(sample(text, 'sluice_gateway_request_duration_seconds_bucket', { api: 'Metered', le: '+Inf' }), 2);
  t.equal(sample(text, 'sluice_gateway_backend_duration_seconds_count', { api: 'Metered' }), 2, 'backend latency histogram');
  t.ok((sample(text, 'sluice_backend_connections', { backend: `http://127.0.0.1:${backend.port}`, state: 'open' }) ?? 0) >= 1, 'backend pool gauges');
  t.equal(sample(text, 'sluice_backend_waiting_requests', { backend: `http://127.0.0.1:${backend.port}` }), 0);
  t.equal(sample(text, 'sluice_worker_pool_max', { thread: '0' }), 400, 'worker pool gauges');
  t.equal(sample(text, 'sluice_worker_pool_active', { thread: '0' }), 0);
  t.equal(sample(text, 'sluice_gateway_in_flight', { thread: '0' }), 0);
  t.ok(sample(text, 'process_resident_memory_bytes', {}), 'process metrics, unprefixed');
  const again = (await request(`http://127.0.0.1:${s.home.ports.servletHttp}/metrics`)).text;
  t.ok((sample(again, 'sluice_servlet_requests_total', { method: 'GET', status: '200' }) ?? 0) >= 1, 'servlet requests (the first scrape)');

  // ---- the access log: one line per call, combined format plus time, API, application, error code
  const logs = path.join(s.home.dir, 'repository/logs');
  const accessFile = path.join(logs, 'http_access.log');
  const lines = await eventually(() => {
    const all = fs.existsSync(accessFile) ? fs.readFileSync(accessFile, 'utf8').split('\n').filter((l) => /"(GET|POST) \/(metered|nowhere|blocked|dead)/.test(l)) : [];
    return all.length >= 5 ? all : undefined;
  }, 'five gateway lines in http_access.log');
  t.equal(lines.length, 5, 'one line per call');
  const first = lines.find((l) => l.includes('/metered/1.0.0/a'))!;
  t.match(first, /^127\.0\.0\.1 - - \[\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "GET \/metered\/1\.0\.0\/a\?access_token=\*{8}&q=1 HTTP\/1\.1" 200 \d+ "http:\/\/ref\.example\/p" "test-agent\/1\.0" \d+\.\d{3} Metered:1\.0\.0 - -$/);
  t.match(lines.find((l) => l.includes('/nowhere'))!, /" 404 \d+ "-" "[^"]*" [\d.]+ - - 404$/);
  t.match(lines.find((l) => l.includes('/blocked'))!, /" 503 \d+ .* Blocked:1\.0\.0 - 700700$/);
  t.match(lines.find((l) => l.includes('/dead'))!, / Dead:1\.0\.0 - 101503$/);
  t.match(lines.find((l) => l.includes('POST /metered'))!, /"POST \/metered\/1\.0\.0\/b HTTP\/1\.1" 200 /);
  const servletLine = await eventually(() => fs.readFileSync(accessFile, 'utf8').split('\n').find((l) => l.includes('"GET /metrics HTTP/1.1"')), 'the servlet request line');
  t.match(servletLine, / 200 \d+ "-" "[^"]*" [\d.]+ - - -$/, 'servlet requests are logged in the same format');

  // ---- analytics: one JSON event per completed call
  const analyticsFile = path.join(logs, 'analytics.log');
  const events = await eventually(() => {
    const list = fs.existsSync(analyticsFile) ? fs.readFileSync(analyticsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) : [];
    return list.length >= 5 ? list : undefined;
  }, 'five analytics events');
  t.equal(events.length, 5);
  const get = events.find((e) => e['apiMethod'] === 'GET' && e['apiName'] === 'Metered')!;
  t.match(get, {
    eventType: 'response', apiName: 'Metered', apiVersion: '1.0.0', apiContext: '/metered', apiResourceTemplate: '/*', apiType: 'HTTP',
    proxyResponseCode: 200, targetResponseCode: 200, errorCode: null, userIp: '127.0.0.1', userAgent: 'test-agent/1.0', destination: `${backend.url}/m`,
    applicationName: null, userName: null,
  });
  t.ok(get['backendLatency'] >= 0 && get['responseLatency'] >= get['backendLatency'] && get['gatewayLatency'] >= 0, 'backend and gateway latency');
  t.match(get['requestTimestamp'], /^\d{4}-\d\d-\d\dT/);
  t.equal(get['properties']['requestHeaders']['authorization'], '********', 'headers with send_headers, credentials masked');
  t.equal(get['properties']['requestHeaders']['cookie'], '********');
  t.equal(get['properties']['requestHeaders']['apikey'], '********');
  t.equal(get['properties']['requestHeaders']['user-agent'], 'test-agent/1.0');
  t.equal(get['properties']['responseHeaders']['x-backend'], 'echo');
  t.equal(get['properties']['responseSize'], r1.body.length, 'the response size with build_response_message');
  t.match(events.find((e) => e['apiName'] === 'Blocked'), { eventType: 'fault', errorCode: 700700, errorType: 'API_BLOCKED', errorMessage: 'API blocked', backendLatency: null, targetResponseCode: null });
  t.match(events.find((e) => e['apiName'] === 'Dead'), { eventType: 'fault', errorCode: 101503, errorType: 'TARGET_CONNECTIVITY' });

  // ---- nothing secret in any log file
  await s.stop();
  for (const f of fs.readdirSync(logs)) {
    const content = fs.readFileSync(path.join(logs, f), 'utf8');
    for (const secret of SECRETS) t.notOk(content.includes(secret), `${f} does not hold ${secret}`);
  }
});

t.test('useLogger: access lines go to the main log; metrics can be switched off', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { http_access_log: { enabled: true, useLogger: true }, sluice: { metrics: { enable: false } } }, {
    [`${API_DIR}/metered.toml`]: apiToml({ name: 'Metered', context: '/metered', production: backend.url, verbs: ['GET'] }),
  });
  t.equal((await request(s.url('/metered/1.0.0/a'))).status, 200);
  const line = await eventually(() => s.home.logs().find((l) => l['component'] === 'http_access' && String(l['msg']).includes('/metered/1.0.0/a')), 'the access line in the main log');
  t.match(String(line['msg']), /"GET \/metered\/1\.0\.0\/a HTTP\/1\.1" 200 .* Metered:1\.0\.0 - -$/);
  t.notOk(fs.existsSync(path.join(s.home.dir, 'repository/logs/http_access.log')), 'no separate file');
  t.equal((await request(`http://127.0.0.1:${s.home.ports.servletHttp}/metrics`)).status, 404, '[sluice.metrics] enable = false');
});

t.test('access log disabled: nothing written, and the io threads are told to record nothing', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { http_access_log: { enabled: false }, sluice: { metrics: { enable: false } } }, {
    [`${API_DIR}/metered.toml`]: apiToml({ name: 'Metered', context: '/metered', production: backend.url, verbs: ['GET'] }),
  });
  t.same(s.node.telemetry.settings(), { ...s.node.telemetry.settings(), metrics: false, records: false, tracing: false });
  t.equal((await request(s.url('/metered/1.0.0/a'))).status, 200);
  await new Promise((r) => setTimeout(r, 400));
  t.notOk(fs.existsSync(path.join(s.home.dir, 'repository/logs/http_access.log')));
});
