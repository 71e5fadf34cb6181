import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';

/** OTLP/JSON as the OpenTelemetry protocol defines it (ExportTraceServiceRequest), the parts the test reads. */
interface KeyValue { key: string; value: { stringValue?: string; intValue?: number | string; boolValue?: boolean } }
interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number;
  startTimeUnixNano: string | number; endTimeUnixNano: string | number; attributes: KeyValue[]; status?: { code?: number; message?: string };
}
interface Export { resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { scope: { name: string; version?: string }; spans: OtlpSpan[] }[] }[] }
interface Received { path: string; headers: http.IncomingHttpHeaders; body: Export }

/**
 * An OTLP/HTTP receiver written for the test with node:http: it decodes each POST's JSON body and keeps it,
 * answering 200 (or `status`), as an OpenTelemetry Collector's otlphttp receiver would.
 */
async function otlpReceiver(t: { teardown(fn: () => unknown): void }, status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && /application\/json/.test(req.headers['content-type'] ?? '')) {
        received.push({ path: req.url!, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Export });
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${port}/v1/traces`, received };
}

const attr = (list: KeyValue[], key: string): unknown => {
  const v = list.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
};
const spansOf = (received: Received[]): OtlpSpan[] => received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));

t.test('OTLP/HTTP export beside Zipkin: the same trace, ids, parents, kinds, attributes and resource', async (t) => {
  const otlp = await otlpReceiver(t);
  const zipkinSpans: { traceId: string; id: string }[] = [];
  const zipkin = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { zipkinSpans.push(...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { traceId: string; id: string }[])); res.writeHead(202).end(); });
  });
  await new Promise<void>((r) => zipkin.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { zipkin.closeAllConnections(); zipkin.close(() => r()); }));
  const backend = await echoBackend(t);
  const s = await startSluice(t, {
    apim: { open_tracer: { remote_tracer: { enable: true, properties: { hostname: '127.0.0.1', port: (zipkin.address() as net.AddressInfo).port } } } },
    sluice: { tracing: { batch_interval: '100ms', service_name: 'edge-gw', otlp: { enable: true, endpoint: otlp.url, headers: ['X-Api-Key: otlp-key-5521', 'X-Tenant: acme'] } } },
  }, {
    [`${API_DIR}/traced.toml`]: apiToml({ name: 'Traced', context: '/traced', production: `${backend.url}/svc`, verbs: ['GET'] }),
    [`${API_DIR}/dead.toml`]: apiToml({ name: 'Dead', context: '/dead', production: 'http://127.0.0.1:1/x', verbs: ['GET'] }),
  });
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const caller = 'b7ad6b7169203331';
  t.equal((await request(s.url('/traced/1.0.0/menu'), { headers: { traceparent: `00-${traceId}-${caller}-01` } })).status, 200);
  t.equal((await request(s.url('/dead/1.0.0/x'))).status, 503);

  const spans = await eventually(() => { const all = spansOf(otlp.received); return all.length >= 4 ? all : null; }, 'four spans at the OTLP receiver');
  const post = otlp.received[0]!;
  t.equal(post.path, '/v1/traces', 'the endpoint\'s path');
  t.equal(post.headers['x-api-key'], 'otlp-key-5521', 'configured headers are sent');
  t.equal(post.headers['x-tenant'], 'acme');
  const rs = post.body.resourceSpans[0]!;
  t.equal(attr(rs.resource.attributes, 'service.name'), 'edge-gw', '[sluice.tracing] service_name is the resource\'s service.name');
  t.ok(attr(rs.resource.attributes, 'service.version'));
  t.equal(rs.scopeSpans[0]!.scope.name, 'sluice');

  const mine = spans.filter((x) => x.traceId === traceId);
  const server = mine.find((x) => x.kind === 2)!;
  const client = mine.find((x) => x.kind === 3)!;
  t.ok(server && client, 'a SERVER (2) and a CLIENT (3) span of the caller\'s trace');
  t.equal(server.parentSpanId, caller, 'the caller\'s span is the gateway span\'s parent');
  t.equal(client.parentSpanId, server.spanId, 'the backend span is the gateway span\'s child');
  t.match(server.spanId, /^[0-9a-f]{16}$/);
  t.equal(attr(server.attributes, 'http.request.method'), 'GET');
  t.equal(attr(server.attributes, 'http.response.status_code'), 200);
  t.equal(attr(server.attributes, 'url.path'), '/traced/1.0.0/menu');
  t.equal(attr(server.attributes, 'sluice.api'), 'Traced');
  t.equal(attr(client.attributes, 'url.full'), `${backend.url}/svc`, 'the endpoint (as Zipkin\'s http.url)');
  t.ok(BigInt(String(server.endTimeUnixNano)) > BigInt(String(server.startTimeUnixNano)), 'start before end, in nanoseconds');
  const ms = Number(BigInt(String(server.startTimeUnixNano)) / 1_000_000n);
  t.ok(Math.abs(ms - Date.now()) < 60_000, 'times are epoch nanoseconds');
  const failed = spans.find((x) => x.kind === 2 && attr(x.attributes, 'sluice.api') === 'Dead')!;
  t.equal(failed.status?.code, 2, 'a call that failed is an ERROR span');
  t.equal(attr(failed.attributes, 'sluice.error_code'), '101503');

  await eventually(() => zipkinSpans.some((z) => z.traceId === traceId && z.id === server.spanId), 'the same span at the Zipkin collector');
});

t.test('a collector that fails costs its spans and one warning; the gateway keeps serving', async (t) => {
  const otlp = await otlpReceiver(t, 500);
  const backend = await echoBackend(t);
  const s = await startSluice(t, { sluice: { tracing: { batch_interval: '100ms', otlp: { enable: true, endpoint: otlp.url, timeout: '2s' } } } }, {
    [`${API_DIR}/traced.toml`]: apiToml({ name: 'Traced', context: '/traced', production: backend.url, verbs: ['GET'] }),
  });
  for (let i = 0; i < 5; i++) t.equal((await request(s.url('/traced/1.0.0/x'))).status, 200);
  await eventually(() => s.home.logs().some((l) => l['msg'] === 'spans could not be sent to the OTLP collector'), 'the warning');
  t.equal(s.home.logs().filter((l) => l['msg'] === 'spans could not be sent to the OTLP collector').length, 1, 'one warning, not one per batch');
  t.equal((await request(s.url('/traced/1.0.0/y'))).status, 200);
});

t.test('bad OTLP keys are configuration errors with the key named', async (t) => {
  const { loadConfig } = await import('../../conf/loader.js');
  const { makeHome } = await import('../helpers/home.js');
  const home = await makeHome({ sluice: { tracing: { otlp: { enable: true, endpoint: 'collector:4318', headers: ['X-Bad\r\nInjected: 1'] } } } });
  t.teardown(() => home.cleanup());
  t.throws(() => loadConfig(home.dir), /sluice\.tracing\.otlp\.endpoint: "collector:4318" is not an http or https URL[\s\S]*sluice\.tracing\.otlp\.headers: each header is "Name: value"/);
});
