import t from 'tap';
import crypto from 'node:crypto';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request, faultOf, rawBackend, rawExchange, onRequestHead, type SeenRequest } from '../helpers/backends.js';

t.test('a call passes through to /<endpoint base>/<resource path>?<query> and back', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: `${be.url}/base` }) });

  const r = await request(s.url('/echo/1.0.0/a/b?x=1&y=%20z'), { headers: { 'x-custom': 'kept', accept: 'application/json' } });
  t.equal(r.status, 200);
  const seen = r.json as SeenRequest;
  t.equal(seen.url, '/base/a/b?x=1&y=%20z', 'path and query mapped onto the endpoint');
  t.equal(seen.headers['x-custom'], 'kept', 'end-to-end headers pass');
  t.equal(seen.headers.host, `127.0.0.1:${be.port}`, 'Host is the backend');
  t.equal(seen.headers['x-forwarded-for'], '127.0.0.1', 'X-Forwarded-For carries the client');
  t.equal(seen.headers['x-forwarded-proto'], 'http');
  t.equal(seen.headers['x-forwarded-host'], `127.0.0.1:${s.home.ports.http}`, 'X-Forwarded-Host is what the client asked for');
  t.equal(r.headers['x-backend'], 'echo', 'backend response headers pass');

  const root = await request(s.url('/echo/1.0.0'));
  t.equal((root.json as SeenRequest).url, '/base', 'the API root maps onto the endpoint base');
});

t.test('request and response bodies pass whole, with Content-Length and chunked framing', async (t) => {
  const be = await echoBackend(t, (req, res) => {
    if (req.url === '/big') {
      // 8 MiB in 64 KiB writes, chunked.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(65536, 7);
      let left = 128;
      const pump = (): void => { while (left > 0) { left--; if (!res.write(chunk)) { res.once('drain', pump); return; } } res.end(); };
      pump();
      return true;
    }
    return false;
  });
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const body = crypto.randomBytes(3 * 1024 * 1024 + 17);
  const sha = crypto.createHash('sha256').update(body).digest('hex');
  const cl = await request(s.url('/echo/1.0.0/up'), { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
  t.equal((cl.json as SeenRequest).bodySha, sha, 'a Content-Length body arrives whole');
  t.equal((cl.json as SeenRequest).headers['content-length'], String(body.length));

  const chunked = await request(s.url('/echo/1.0.0/up'), { method: 'PUT', body, headers: { 'transfer-encoding': 'chunked' } });
  t.equal((chunked.json as SeenRequest).bodySha, sha, 'a chunked body arrives whole');
  t.equal((chunked.json as SeenRequest).headers['transfer-encoding'], 'chunked', 'and stays chunked');

  const big = await request(s.url('/echo/1.0.0/big'));
  t.equal(big.status, 200);
  t.equal(big.body.length, 128 * 65536, 'a chunked 8 MiB response arrives whole');
  t.ok(big.body.every((b) => b === 7));
});

t.test('HEAD, 204 and 304 carry no body; HEAD keeps the backend Content-Length', async (t) => {
  const be = await echoBackend(t, (req, res) => {
    if (req.url === '/nocontent') { res.writeHead(204); res.end(); return true; }
    if (req.url === '/notmodified') { res.writeHead(304, { etag: '"x"' }); res.end(); return true; }
    if (req.method === 'HEAD') { res.writeHead(200, { 'content-length': '1234', 'content-type': 'text/plain' }); res.end(); return true; }
    return false;
  });
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const head = await request(s.url('/echo/1.0.0/thing'), { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers['content-length'], '1234');
  t.equal(head.body.length, 0);
  const nc = await request(s.url('/echo/1.0.0/nocontent'));
  t.equal(nc.status, 204);
  t.equal(nc.headers['content-length'], undefined, 'no Content-Length on 204');
  const nm = await request(s.url('/echo/1.0.0/notmodified'));
  t.equal(nm.status, 304);
  t.equal(nm.headers.etag, '"x"');
});

t.test('hop-by-hop headers are removed both ways', async (t) => {
  const be = await echoBackend(t, (req, res) => {
    res.writeHead(200, { connection: 'keep-alive, x-hop', 'keep-alive': 'timeout=5', 'x-hop': 'backend-only', 'x-end': 'kept', 'proxy-connection': 'x' });
    res.end(JSON.stringify({ headers: req.headers }));
    return true;
  });
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const r = await request(s.url('/echo/1.0.0/x'), { headers: { connection: 'keep-alive, x-client-hop', 'x-client-hop': 'gone', 'keep-alive': '300', te: 'trailers', 'proxy-authorization': 'Basic x', 'x-e2e': 'stays' } });
  const seen = (r.json as { headers: Record<string, string> }).headers;
  t.equal(seen['x-client-hop'], undefined, 'a header named by Connection is not forwarded');
  t.equal(seen['keep-alive'], undefined);
  t.equal(seen['te'], undefined);
  t.equal(seen['proxy-authorization'], undefined);
  t.equal(seen['x-e2e'], 'stays');
  t.equal(r.headers['x-hop'], undefined, 'a response header named by Connection is not passed on');
  t.equal(r.headers['keep-alive'], undefined);
  t.equal(r.headers['proxy-connection'], undefined);
  t.equal(r.headers['x-end'], 'kept');
});

t.test('response headers: hop-by-hop names in any case are dropped, the rest pass byte for byte (latin1 too)', async (t) => {
  const be = await rawBackend(t, (sock) => onRequestHead(sock, () => {
    sock.write(Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nCONNECTION: Keep-Alive, X-Hop\r\nKeep-Alive: timeout=5\r\nX-Hop: backend-only\r\nProxy-Connection: x\r\n'
        + 'DATE: Mon, 01 Jan 2024 00:00:00 GMT\r\nContent-Length: 2\r\nX-Case: Kept\r\nX-Latin: caf', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from('\r\n\r\nok', 'latin1'),
    ]));
  }));
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const raw = await rawExchange(s.home.ports.http, 'GET /echo/1.0.0/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const head = raw.text.slice(0, raw.text.indexOf('\r\n\r\n'));
  t.match(head, /^HTTP\/1\.1 200 OK\r\n/);
  t.notMatch(head, /x-hop|keep-alive:|proxy-connection/i, 'hop-by-hop fields, and those Connection names, are gone whatever their case');
  t.notMatch(head, /Mon, 01 Jan 2024/, "the backend's Date is replaced by the gateway's");
  t.match(head, /\r\nX-Case: Kept(\r\n|$)/, 'other names keep their case and value');
  t.ok(Buffer.from(raw.text, 'latin1').includes(Buffer.from('X-Latin: caf\xe9', 'latin1')), 'a latin1 byte is sent as the backend sent it');
});

t.test('user agent and server headers follow http.user.agent.preserve and http.server.preserve', async (t) => {
  const be = await echoBackend(t, (req, res) => { res.writeHead(200, { server: 'acme-backend/1.0' }); res.end(JSON.stringify({ ua: req.headers['user-agent'] })); return true; });
  const files = { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) };
  const dflt = await startSluice(t, {}, files);
  let r = await request(dflt.url('/echo/1.0.0/x'), { headers: { 'user-agent': 'acme-client/2' } });
  t.equal((r.json as { ua: string }).ua, 'Synapse-PT-HttpComponents-NIO', 'user agent replaced by default');
  t.equal(r.headers.server, 'acme-backend/1.0', 'server header preserved by default');
  const flipped = await startSluice(t, { passthru_http: { 'http.user.agent.preserve': true, 'http.server.preserve': false } }, files);
  r = await request(flipped.url('/echo/1.0.0/x'), { headers: { 'user-agent': 'acme-client/2' } });
  t.equal((r.json as { ua: string }).ua, 'acme-client/2', 'user agent preserved when asked');
  t.not(r.headers.server, 'acme-backend/1.0', 'backend server header replaced when not preserved');
});

t.test('routing: no API is the main sequence 404, a BLOCKED API is 700700/503, no resource is 900906/403', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url, verbs: ['GET'], template: '/menu/{id}' }),
    [`${API_DIR}/blocked.toml`]: apiToml({ name: 'Blocked', context: '/blocked', production: be.url, state: 'BLOCKED' }),
  });
  let r = await request(s.url('/nothing/here'));
  t.equal(r.status, 404);
  t.equal(faultOf(r)?.code, 404);
  r = await request(s.url('/blocked/1.0.0/x'));
  t.equal(r.status, 503);
  t.equal(faultOf(r)?.code, 700700);
  r = await request(s.url('/echo/1.0.0/menu/7'));
  t.equal(r.status, 200, 'a template with a parameter matches');
  t.equal((r.json as SeenRequest).url, '/menu/7');
  r = await request(s.url('/echo/1.0.0/menu'));
  t.equal(r.status, 403, 'the parameter is required');
  t.equal(faultOf(r)?.code, 900906);
  r = await request(s.url('/echo/1.0.0/menu/7'), { method: 'POST', body: 'x' });
  t.equal(r.status, 403, 'a verb the resource does not have');
  t.equal(faultOf(r)?.code, 900906);
  r = await request(s.url('/echo/2.0.0/menu/7'));
  t.equal(r.status, 404, 'another version is another API');
  t.equal(be.seen.length, 1, 'only the matching call reached the backend');
});
