import t from 'tap';
import { spawn } from 'node:child_process';
import { startSluice, type TestSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { rawBackend, onRequestHead, onEachRequestHead, request, faultOf, echoBackend } from '../helpers/backends.js';

// One gateway for the whole file: each case is its own API with its own misbehaving backend.
async function gateway(t: Tap.Test, apis: Record<string, string>, conf: Record<string, unknown> = {}): Promise<TestSluice> {
  const files: Record<string, string> = {};
  for (const [name, endpoint] of Object.entries(apis)) files[`${API_DIR}/${name}.toml`] = apiToml({ name, context: `/${name}`, production: endpoint });
  return startSluice(t, { passthru_http: { 'http.socket.timeout': 600, backend_connect_timeout: 700 }, ...conf }, files);
}

function logged(s: TestSluice, code: number): Promise<Record<string, unknown>> {
  return eventually(() => s.home.logs().find((l) => l['code'] === code), `a log line with code ${code}`);
}

t.test('connection refused and DNS failure: 101503 (REQUEST_READY) with 503', async (t) => {
  const s = await gateway(t, { refused: 'http://127.0.0.1:1/x', nodns: 'http://acme-no-such-host.invalid/x' });
  for (const p of ['/refused/1.0.0/a', '/nodns/1.0.0/a']) {
    const r = await request(s.url(p));
    t.equal(r.status, 503, p);
    t.equal(faultOf(r)?.code, 101503, p);
    t.equal(faultOf(r)?.description, 'Connection failed in REQUEST_READY', `${p}: the description names the base error and the state`);
    t.notMatch(r.text, /127\.0\.0\.1|invalid/, `${p}: no backend address in the client's fault`);
  }
  const line = await logged(s, 101503);
  t.equal(line['state'], 'REQUEST_READY');
  t.match(String(line['reason']), /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/, 'the log line keeps the cause');
});

t.test('no answer after the request: 101504 + REQUEST_DONE = 101507 with 504', async (t) => {
  const be = await rawBackend(t, (sock) => onRequestHead(sock, () => { /* silence */ }));
  const s = await gateway(t, { silent: be.url });
  const r = await request(s.url('/silent/1.0.0/a'));
  t.equal(r.status, 504);
  t.equal(faultOf(r)?.code, 101507);
  t.equal(faultOf(r)?.description, 'Connection timed out in REQUEST_DONE');
  const line = await logged(s, 101507);
  t.equal(line['base'], 101504, 'the log names the base error despite the collision with 101507 Connection canceled');
  t.equal(line['state'], 'REQUEST_DONE');
});

t.test('a backend that stops reading the request body: 101504 + REQUEST_BODY = 101506', async (t) => {
  const be = await rawBackend(t, (sock) => onRequestHead(sock, () => sock.pause()));
  const s = await gateway(t, { stuck: be.url });
  const r = await request(s.url('/stuck/1.0.0/a'), { method: 'POST', body: Buffer.alloc(48 * 1024 * 1024, 1) });
  t.equal(faultOf(r)?.code, 101506, 'timed out while sending the body');
  t.equal(faultOf(r)?.description, 'Connection timed out in REQUEST_BODY');
});

t.test('a backend closing before its reply: 101505 + REQUEST_DONE with 502', async (t) => {
  const be = await rawBackend(t, (sock) => onRequestHead(sock, () => sock.destroy()));
  const s = await gateway(t, { reset: be.url });
  const r = await request(s.url('/reset/1.0.0/a'));
  t.equal(r.status, 502);
  t.equal(faultOf(r)?.code, 101508);
  t.equal(faultOf(r)?.description, 'Connection closed by the backend in REQUEST_DONE');
});

t.test('a reply that is not HTTP: 101506 + REQUEST_DONE with 502', async (t) => {
  const be = await rawBackend(t, (sock) => onRequestHead(sock, () => sock.write('HELLO THERE\r\n\r\n')));
  const s = await gateway(t, { garbage: be.url });
  const r = await request(s.url('/garbage/1.0.0/a'));
  t.equal(r.status, 502);
  t.equal(faultOf(r)?.code, 101509);
  t.equal(faultOf(r)?.description, 'Backend protocol violation in REQUEST_DONE');
});

t.test('failures after the status went out close the client connection instead of faking a whole response', async (t) => {
  const reset = await rawBackend(t, (sock) => onRequestHead(sock, () => {
    sock.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n' + 'x'.repeat(10));
    setTimeout(() => sock.destroy(), 50);
  }));
  const stall = await rawBackend(t, (sock) => onRequestHead(sock, () => {
    sock.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n' + 'x'.repeat(10));
  }));
  const s = await gateway(t, { midreset: reset.url, midstall: stall.url });
  for (const [p, code] of [['/midreset/1.0.0/a', 101510], ['/midstall/1.0.0/a', 101509]] as const) {
    const r = await request(s.url(p));
    t.equal(r.status, 200, `${p}: the status was already sent`);
    t.ok(r.aborted, `${p}: the client sees the connection cut`);
    t.ok(r.body.length < 1000, `${p}: not passed on as a whole response`);
    const line = await logged(s, code);
    t.equal(line['state'], 'RESPONSE_BODY', `${p}: logged in RESPONSE_BODY`);
  }
});

t.test('TLS to a backend that does not speak TLS fails the connection: 101503', async (t) => {
  const be = await echoBackend(t);
  const s = await gateway(t, { tlsfail: `https://127.0.0.1:${be.port}/x` });
  const r = await request(s.url('/tlsfail/1.0.0/a'));
  t.equal(faultOf(r)?.code, 101503);
  t.equal(be.seen.length, 0);
});

t.test('a backend that never accepts the connection: 101508 (connect timed out) with 504', async (t) => {
  // A listener with a full accept queue drops new SYNs: connects hang. Node always accepts, python does not.
  const py = spawn('python3', ['-c', [
    'import socket, sys, time',
    's = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)',
    'p = s.getsockname()[1]',
    'fill = []',
    'for i in range(8):',
    '    c = socket.socket(); c.setblocking(False)',
    '    try: c.connect(("127.0.0.1", p))',
    '    except BlockingIOError: pass',
    '    fill.append(c)',
    'print(p, flush=True)',
    'time.sleep(60)',
  ].join('\n')], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => { py.kill('SIGKILL'); });
  const port = await new Promise<number>((resolve, reject) => {
    py.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    py.once('error', reject);
  });
  const s = await gateway(t, { blackhole: `http://127.0.0.1:${port}/x` });
  const r = await request(s.url('/blackhole/1.0.0/a'));
  t.equal(r.status, 504);
  t.equal(faultOf(r)?.code, 101508);
  t.equal(faultOf(r)?.description, 'Connect timed out in REQUEST_READY');
});

t.test('a client that goes away mid-body aborts the backend request and frees both sockets (102511)', async (t) => {
  let backendClosed = false;
  const be = await rawBackend(t, (sock) => { onRequestHead(sock, () => {}); sock.on('close', () => { backendClosed = true; }); });
  const s = await gateway(t, { upload: be.url });
  const net = await import('node:net');
  const c = net.connect(s.home.ports.http, '127.0.0.1', () => {
    c.write('POST /upload/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000\r\n\r\n' + 'y'.repeat(1000));
    setTimeout(() => c.destroy(), 200);
  });
  c.on('error', () => {});
  await logged(s, 102511);
  await eventually(() => backendClosed, 'the backend connection to close');
  t.pass('backend connection closed after the client left');
});

t.test('a request on a pooled connection gets the whole socket timeout for its answer, however long the connection sat idle', async (t) => {
  // http.socket.timeout is 600 ms here. The connection sits idle for 450 ms, then carries a request answered
  // after 350 ms: writing the request must start the wait afresh (800 ms after the last read it still waits).
  let calls = 0;
  const be = await rawBackend(t, (sock) => onEachRequestHead(sock, () => {
    const delay = calls++ === 0 ? 0 : 350;
    setTimeout(() => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'), delay);
  }));
  const s = await gateway(t, { idle: be.url });
  t.equal((await request(s.url('/idle/1.0.0/a'))).status, 200, 'the first call opens the connection');
  await new Promise((r) => setTimeout(r, 450));
  const r = await request(s.url('/idle/1.0.0/b'));
  t.equal(r.status, 200, `the second call is answered, not timed out (${faultOf(r)?.code ?? ''})`);
  t.equal(calls, 2, 'each call reached the backend once');
  t.equal(be.connections(), 1, 'on the pooled connection');
});

t.test('a pooled connection idle for the socket timeout is closed by the gateway, not before', async (t) => {
  // http.socket.timeout is 600 ms here; the idle watch sweeps every 75 ms.
  let closedAfter = -1;
  let answeredAt = 0;
  const be = await rawBackend(t, (sock) => {
    onEachRequestHead(sock, () => { sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'); answeredAt = Date.now(); });
    sock.on('end', () => { closedAfter = Date.now() - answeredAt; sock.end(); });
  });
  const s = await gateway(t, { pooled: be.url });
  t.equal((await request(s.url('/pooled/1.0.0/a'))).status, 200);
  await eventually(() => closedAfter >= 0, 'the gateway to close the idle connection', 3000);
  t.ok(closedAfter >= 550 && closedAfter < 1500, `closed ${closedAfter} ms after its last answer`);
});

t.test('a response that keeps coming, slower than the socket timeout in all but never idle that long, is not timed out', async (t) => {
  // Seven body pieces 250 ms apart: 1.5 s in all against a 600 ms socket timeout. Each read restarts the wait.
  const be = await rawBackend(t, (sock) => onRequestHead(sock, () => {
    sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
    let n = 0;
    const tick = setInterval(() => {
      if (sock.destroyed) { clearInterval(tick); return; }
      if (n++ < 7) { sock.write('1\r\nx\r\n'); return; }
      clearInterval(tick);
      sock.write('0\r\n\r\n');
    }, 250);
  }));
  const s = await gateway(t, { trickle: be.url });
  const r = await request(s.url('/trickle/1.0.0/a'));
  t.equal(r.status, 200);
  t.equal(r.text, 'xxxxxxx', 'the whole body arrived');
});

t.test('a request body that keeps coming slower than the socket timeout in all is not timed out', async (t) => {
  // The client sends its body in four pieces 250 ms apart (1 s in all, 600 ms socket timeout); the backend
  // answers when it has read it all. Each write to the backend restarts the wait.
  const be = await rawBackend(t, (sock) => onRequestHead(sock, (_head, rest) => {
    let got = rest.length;
    const done = (): void => { if (got >= 4) sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${got}\r\n\r\n${'y'.repeat(got)}`); };
    sock.on('data', (d: Buffer) => { got += d.length; done(); });
    done();
  }));
  const s = await gateway(t, { slowup: be.url });
  const c = (await import('node:net')).connect(Number(new URL(s.url('/')).port), '127.0.0.1');
  await new Promise((r) => c.once('connect', r));
  let reply = '';
  c.on('data', (d: Buffer) => { reply += d.toString('latin1'); });
  c.write('POST /slowup/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-length: 4\r\n\r\n');
  for (let i = 0; i < 4; i++) { await new Promise((r) => setTimeout(r, 250)); c.write('z'); }
  await eventually(() => reply.includes('\r\n\r\n'), 'the reply', 3000);
  t.match(reply, /^HTTP\/1\.1 200 /, `answered, not timed out: ${reply.split('\r\n')[0]}`);
  c.destroy();
});
