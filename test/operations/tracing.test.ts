import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request, type SeenRequest } from '../helpers/backends.js';

interface Span { traceId: string; id: string; parentId?: string; name: string; kind: string; timestamp: number; duration: number; localEndpoint: { serviceName: string }; remoteEndpoint?: Record<string, unknown>; tags: Record<string, string> }

/** A Zipkin collector stand-in: keeps every span POSTed to /api/v2/spans. */
async function zipkin(t: { teardown(fn: () => unknown): void }): Promise<{ port: number; spans: Span[]; posts: number }> {
  const state = { port: 0, spans: [] as Span[], posts: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/v2/spans' && /json/.test(req.headers['content-type'] ?? '')) {
        state.posts++;
        state.spans.push(...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Span[]));
        res.writeHead(202).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as net.AddressInfo).port;
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return state;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

t.test('spans to a Zipkin collector (JSON v2) with the trace propagated to the backend in B3 and W3C forms', async (t) => {
  const z = await zipkin(t);
  const backend = await echoBackend(t);
  const s = await startSluice(t, {
    apim: { open_tracer: { remote_tracer: { enable: true, name: 'zipkin', properties: { hostname: '127.0.0.1', port: z.port } } } },
    sluice: { tracing: { batch_interval: '100ms', service_name: 'edge-gw' } },
  }, {
    [`${API_DIR}/traced.toml`]: apiToml({ name: 'Traced', context: '/traced', production: `${backend.url}/svc`, verbs: ['GET'] }),
  });
  const seen = (r: { json: unknown }): SeenRequest => r.json as SeenRequest;
  const one = (h: SeenRequest, name: string): string => {
    const values = [];
    for (let i = 0; i < h.rawHeaders.length; i += 2) if (h.rawHeaders[i]!.toLowerCase() === name) values.push(h.rawHeaders[i + 1]!);
    t.equal(values.length, 1, `one ${name} header reaches the backend`);
    return values[0]!;
  };

  // ---- the caller sends B3: the trace continues, the caller's span is the gateway span's parent
  const traceId = '463ac35c9f6413ad48485a3953bb6124';
  const callerSpan = 'a2fb4a1d1a96d312';
  const r1 = await request(s.url('/traced/1.0.0/menu'), { headers: { 'x-b3-traceid': traceId, 'x-b3-spanid': callerSpan, 'x-b3-sampled': '1' } });
  t.equal(r1.status, 200);
  const h1 = seen(r1);
  t.equal(one(h1, 'x-b3-traceid'), traceId, 'the backend gets the same trace id');
  const backendSpanId = one(h1, 'x-b3-spanid');
  t.match(backendSpanId, HEX16);
  t.not(backendSpanId, callerSpan, 'with a span id of the gateway\'s');
  const gatewaySpanId = one(h1, 'x-b3-parentspanid');
  t.match(gatewaySpanId, HEX16);
  t.equal(one(h1, 'x-b3-sampled'), '1');
  t.equal(one(h1, 'traceparent'), `00-${traceId}-${backendSpanId}-01`, 'and the W3C form of the same context');
  const spans1 = await eventually(() => {
    const l = z.spans.filter((x) => x.traceId === traceId);
    return l.length >= 2 ? l : undefined;
  }, 'the two spans of the call at the collector');
  const server = spans1.find((x) => x.kind === 'SERVER')!;
  const client = spans1.find((x) => x.kind === 'CLIENT')!;
  t.match(server, { id: gatewaySpanId, parentId: callerSpan, localEndpoint: { serviceName: 'edge-gw' }, name: 'get /traced/1.0.0' });
  t.match(server.tags, { 'http.method': 'GET', 'http.path': '/traced/1.0.0/menu', 'http.status_code': '200', 'sluice.api': 'Traced', 'sluice.api_version': '1.0.0' });
  t.match(client, { id: backendSpanId, parentId: gatewaySpanId, kind: 'CLIENT', remoteEndpoint: { ipv4: '127.0.0.1', port: backend.port } });
  t.equal(client.tags['http.url'], `${backend.url}/svc`);
  t.ok(server.timestamp > 1.6e15 && server.duration >= 1, 'microseconds since the epoch');
  t.ok(client.timestamp >= server.timestamp && client.timestamp + client.duration <= server.timestamp + server.duration + 1000, 'the backend span inside the gateway span');

  // ---- W3C traceparent only
  const w3cTrace = '0af7651916cd43dd8448eb211c80319c';
  const r2 = await request(s.url('/traced/1.0.0/w3c'), { headers: { traceparent: `00-${w3cTrace}-b7ad6b7169203331-01`, tracestate: 'vendor=x' } });
  const h2 = seen(r2);
  t.equal(one(h2, 'x-b3-traceid'), w3cTrace);
  t.match(one(h2, 'traceparent'), new RegExp(`^00-${w3cTrace}-[0-9a-f]{16}-01$`));
  t.equal(one(h2, 'tracestate'), 'vendor=x', 'tracestate passes through');
  await eventually(() => z.spans.find((x) => x.traceId === w3cTrace && x.kind === 'SERVER' && x.parentId === 'b7ad6b7169203331'), 'the W3C-continued span');

  // ---- nothing sent by the caller: a new trace
  const h3 = seen(await request(s.url('/traced/1.0.0/new')));
  const newTrace = one(h3, 'x-b3-traceid');
  t.match(newTrace, HEX32, 'a new 128-bit trace id');
  const spans3 = await eventually(() => { const l = z.spans.filter((x) => x.traceId === newTrace); return l.length >= 2 ? l : undefined; }, 'the new trace\'s spans');
  t.notOk(spans3.find((x) => x.kind === 'SERVER')!.parentId, 'a root span');

  // ---- not sampled by the caller: propagated as such, nothing recorded
  const unsampled = '5b8aa5a2d2c872e8321cf37308d69df2';
  const h4 = seen(await request(s.url('/traced/1.0.0/quiet'), { headers: { 'x-b3-traceid': unsampled, 'x-b3-spanid': '5b8aa5a2d2c872e8', 'x-b3-sampled': '0' } }));
  t.equal(one(h4, 'x-b3-sampled'), '0');
  t.match(one(h4, 'traceparent'), /-00$/);

  // ---- a call that never reaches a backend still has its gateway span
  const faultTrace = 'fa17fa17fa17fa17fa17fa17fa17fa17';
  t.equal((await request(s.url('/no-such-api/x'), { headers: { 'x-b3-traceid': faultTrace, 'x-b3-spanid': '00f067aa0ba902b7' } })).status, 404);
  const faultSpan = await eventually(() => z.spans.find((x) => x.traceId === faultTrace), 'the span of the 404');
  t.match(faultSpan, { kind: 'SERVER', tags: { 'http.status_code': '404', 'sluice.error_code': '404' } });
  t.equal(z.spans.filter((x) => x.traceId === faultTrace).length, 1, 'no backend span');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(z.spans.filter((x) => x.traceId === unsampled).length, 0, 'an unsampled trace is not sent');
  t.ok(z.posts < z.spans.length, 'spans are sent in batches');
});

t.test('log_tracer: spans written to repository/logs/tracer.log; tracing off adds nothing', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { apim: { open_tracer: { log_tracer: { enable: true } } } }, {
    [`${API_DIR}/traced.toml`]: apiToml({ name: 'Traced', context: '/traced', production: backend.url, verbs: ['GET'] }),
  });
  const r = await request(s.url('/traced/1.0.0/x'));
  const traceId = (r.json as SeenRequest).headers['x-b3-traceid'] as string;
  t.match(traceId, HEX32);
  const file = path.join(s.home.dir, 'repository/logs/tracer.log');
  const spans = await eventually(() => {
    const l = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((x) => JSON.parse(x) as Span) : [];
    return l.filter((x) => x.traceId === traceId).length >= 2 ? l : undefined;
  }, 'spans in tracer.log');
  t.same(spans.filter((x) => x.traceId === traceId).map((x) => x.kind).sort(), ['CLIENT', 'SERVER']);

  const off = await startSluice(t, {}, { [`${API_DIR}/plain.toml`]: apiToml({ name: 'Plain', context: '/plain', production: backend.url, verbs: ['GET'] }) });
  const h = (await request(off.url('/plain/1.0.0/x'), { headers: { 'x-b3-traceid': '463ac35c9f6413ad' } })).json as SeenRequest;
  t.notOk(h.headers['traceparent'], 'no traceparent added when tracing is off');
  t.equal(h.headers['x-b3-traceid'], '463ac35c9f6413ad', 'the caller\'s own headers pass through untouched');
  t.notOk(h.headers['x-b3-spanid']);
});
