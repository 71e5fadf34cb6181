import t from 'tap';
import net from 'node:net';
import http from 'node:http';
import { requireBuild, startSluice } from '../fixtures/sluice-process.js';
import { waitPort } from '../helpers/ports.js';
import { makeHome, apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend } from '../helpers/backends.js';

requireBuild();

// The trial: after SIGTERM, clients busy on keep-alive connections kept a draining node serving new
// calls until graceful_stop_timeout (30 s); then the calls running at that moment were reset. Here the
// deadline is 30 s and the longest call in flight 2 s: the drain must end long before the deadline.

/** A client that ignores Connection: close: it sends its next request on the same socket until the server closes it. */
function stubbornClient(port: number, path: string): { done: Promise<{ answers: number; complete: boolean; closedAt: number }>; stop(): void } {
  let stopped = false;
  let answers = 0;
  let buf = Buffer.alloc(0);
  const s = net.connect(port, '127.0.0.1');
  const send = (): void => { if (!stopped) s.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`); };
  s.on('connect', send);
  s.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /content-length: *(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
      const total = end + 4 + Number(m?.[1] ?? 0);
      if (buf.length < total) return;
      buf = buf.subarray(total);
      answers++;
      send();
    }
  });
  s.on('error', () => {});
  const done = new Promise<{ answers: number; complete: boolean; closedAt: number }>((resolve) => s.on('close', () => resolve({ answers, complete: buf.length === 0, closedAt: Date.now() })));
  return { done, stop() { stopped = true; s.destroy(); } };
}

t.test('SIGTERM under keep-alive load: answers say Connection: close, idle connections are closed, the drain ends with the longest call', async (t) => {
  const backend = await echoBackend(t, (req, res) => {
    // The stubborn clients get a Content-Length answer at once (the gateway can end it with a close).
    if (req.url!.includes('/stubborn')) { res.writeHead(200, { 'content-length': '2' }); res.end('ok'); return true; }
    // Busy calls take 150 ms, so that with 32 clients some call is always in flight; the slow one 2 s (both chunked).
    const ms = req.url!.includes('/slow') ? 2000 : req.url!.includes('/busy') ? 150 : 0;
    if (ms === 0) return false;
    setTimeout(() => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(ms === 2000 ? 'slow but whole' : 'busy'); }, ms);
    return true;
  });
  const home = await makeHome({ passthru_http: { graceful_stop_timeout: '30s' }, sluice: { log: { level: 'info' } } },
    { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: backend.url }) });
  t.teardown(() => home.cleanup());
  const p = startSluice(t, home.dir);
  await waitPort(home.ports.http, 40000);
  const port = home.ports.http;

  // Compliant keep-alive clients (Node's agent closes a connection that answered Connection: close).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 33 });
  t.teardown(() => agent.destroy());
  let sigtermAt = 0;
  let stop = false;
  const after: { status: number; connection: string | undefined }[] = [];
  const errors: string[] = [];
  const get = (path: string): Promise<{ status: number; connection?: string; body: string; at: number }> => new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body, at: Date.now() }));
    }).on('error', (e) => resolve({ status: 0, body: e.message, at: Date.now() }));
  });
  const busy = Array.from({ length: 32 }, async (_, i) => {
    await new Promise((x) => setTimeout(x, i * 5));
    while (!stop) {
      const r = await get('/echo/1.0.0/busy');
      if (r.status === 0) { if (sigtermAt === 0) errors.push(r.body); await new Promise((x) => setTimeout(x, 20)); continue; }
      // Answers that ended after SIGTERM reached the node (a few ms): the calls in flight then, and any later.
      if (sigtermAt > 0 && r.at > sigtermAt + 100) after.push({ status: r.status, connection: r.connection });
    }
  });
  const stubborn = Array.from({ length: 4 }, () => stubbornClient(port, '/echo/1.0.0/stubborn'));
  // An idle keep-alive connection: one call, then nothing.
  const idle = net.connect(port, '127.0.0.1');
  const idleClosed = new Promise<number>((resolve) => idle.on('close', () => resolve(Date.now())));
  idle.on('error', () => {});
  await new Promise<void>((resolve) => { idle.write('GET /echo/1.0.0/idle HTTP/1.1\r\nhost: x\r\n\r\n'); idle.once('data', () => resolve()); });

  await new Promise((r) => setTimeout(r, 1000));
  const slow = get('/echo/1.0.0/slow');
  await new Promise((r) => setTimeout(r, 300));
  sigtermAt = Date.now();
  p.child.kill('SIGTERM');
  const exit = await p.exited;
  const drainMs = Date.now() - sigtermAt;
  stop = true;
  for (const s of stubborn) s.stop();
  await Promise.all(busy);

  t.equal(exit.code, 0, 'the node stops cleanly');
  t.ok(drainMs < 10_000, `the drain took ${drainMs} ms: about the longest call in flight (2 s), not the 30 s deadline`);
  const s = await slow;
  t.equal(s.status, 200, 'the call in flight at SIGTERM finished');
  t.equal(s.body, 'slow but whole');
  t.equal(s.connection, 'close', 'and said Connection: close');
  t.ok(after.length > 0, `${after.length} calls in flight at SIGTERM (or later) were answered`);
  t.ok(after.every((r) => r.status === 200 && r.connection === 'close'), 'every answer after SIGTERM is a 200 with Connection: close');
  const stubbornEnds = await Promise.all(stubborn.map((c) => c.done));
  t.ok(stubbornEnds.every((e) => e.complete && e.closedAt > sigtermAt && e.closedAt - sigtermAt < 10_000),
    `clients that ignore Connection: close are served until SIGTERM, then closed after a whole answer: ${JSON.stringify(stubbornEnds.map((e) => [e.answers, e.closedAt - sigtermAt]))}`);
  t.ok((await idleClosed) - sigtermAt < 10_000, 'the idle keep-alive connection was closed by the drain');
  t.same(errors, [], 'no failed call before SIGTERM');
});
