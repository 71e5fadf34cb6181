import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { luaString, parseWrkOutput, runWrk, wrkScript } from '../../bench/lib/wrk.js';

t.test('Lua string literals carry any bytes: quotes, backslashes, controls and UTF-8 as escapes', async (t) => {
  t.equal(luaString('Bearer abc.def-ghi_'), '"Bearer abc.def-ghi_"');
  t.equal(luaString('a"b\\c'), '"a\\"b\\\\c"');
  t.equal(luaString('line\nbreak\r\0'), '"line\\10break\\13\\0"');
  t.equal(luaString('é'), '"\\195\\169"', 'UTF-8 bytes, each as a decimal escape');
  t.match(wrkScript({ method: 'POST', headers: { a: 'b' }, bodyFile: '/tmp/x"y' }), /wrk\.method = "POST"\nwrk\.headers\["a"\] = "b"\n.*io\.open\("\/tmp\/x\\"y", "rb"\)/s);
});

t.test('wrk\'s output: the script\'s summary line, latencies in microseconds to milliseconds', async (t) => {
  // A real run of Debian's wrk 4.1 with this module's script against a server answering 503 (the fixture's README).
  const r = parseWrkOutput(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/bench/wrk-4.1-output.txt'), 'utf8'));
  t.equal(r.requests, 11760);
  t.equal(Math.round(r.requestsPerSec), Math.round(11760 / 1.098194), 'requests over wrk\'s own measured duration');
  t.equal(r.non2xx, 11760, 'status errors are the non-2xx/3xx answers');
  t.equal(r.errors, 0);
  t.same(r.latencyMs, { p50: 0.186, p90: 4.684, p99: 21.771, p999: 27.621, max: 30.049 }, 'the same percentiles as wrk\'s own report (99% 21.77ms)');
  t.throws(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused\n'), /wrk printed no summary/);
});

function server(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(s.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); }),
  })));
}

/** A header value that would end a Lua string and run code if it were not escaped. */
const EVIL = '"] os.exit(3) --\\';

t.test('a real wrk run sends the method, headers and body asked for, on keep-alive connections, and counts what came back', async (t) => {
  const body = Buffer.from(JSON.stringify({ n: 'x'.repeat(1000), quote: '"', nl: '\n' }));
  let seen = 0;
  let wrong = 0;
  const sockets = new Set<net.Socket>();
  const s = await server((req, res) => {
    sockets.add(req.socket);
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen++;
      if (req.method !== 'POST' || req.url !== '/echo?q=1' || req.headers['authorization'] !== 'Bearer a"b' || req.headers['x-lua'] !== EVIL || !Buffer.concat(parts).equals(body)) wrong++;
      res.end('ok');
    });
  });
  t.teardown(s.close);
  const r = await runWrk({ url: `${s.url}/echo?q=1`, connections: 4, durationSec: 1, method: 'POST', body, headers: { authorization: 'Bearer a"b', 'content-type': 'application/json', 'x-lua': EVIL } });
  t.ok(r.requests > 0, `${r.requests} requests`);
  t.equal(wrong, 0, 'every request as asked');
  t.ok(seen >= r.requests && seen <= r.requests + 4, `the server saw what wrk counted, give or take the calls in flight at the end (${seen} / ${r.requests})`);
  t.ok(sockets.size <= 4, `keep-alive: ${sockets.size} connections`);
  t.equal(r.non2xx, 0);
  t.equal(r.errors, 0);
  t.ok(r.latencyMs.p50 > 0 && r.latencyMs.p50 <= r.latencyMs.p99 && r.latencyMs.p99 <= r.latencyMs.max);
});

t.test('answers of 400 and more are counted as non-2xx; a refused connection fails the run', async (t) => {
  const s = await server((_req, res) => { res.statusCode = 503; res.end('no'); });
  t.teardown(s.close);
  const r = await runWrk({ url: s.url, connections: 2, durationSec: 1 });
  t.ok(r.requests > 0);
  t.equal(r.non2xx, r.requests);
  // A port nobody listens on.
  const dead = net.createServer();
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  const port = (dead.address() as net.AddressInfo).port;
  await new Promise((resolve) => dead.close(resolve));
  await t.rejects(runWrk({ url: `http://127.0.0.1:${port}/`, connections: 2, durationSec: 1 }), /exited 1: unable to connect/, 'a load that cannot start fails, saying why');
});

t.test('HTTPS keep-alive, as the reference scenario runs it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-wrk-tls-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  let handshakes = 0;
  const s = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')), keepAliveTimeout: 60_000 }, (req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => res.end(Buffer.concat(parts)));
  });
  s.on('secureConnection', () => { handshakes++; });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); }));
  const r = await runWrk({ url: `https://127.0.0.1:${(s.address() as net.AddressInfo).port}/`, connections: 3, durationSec: 1, method: 'POST', body: Buffer.alloc(1024, 97) });
  t.ok(r.requests > 0);
  t.equal(r.errors + r.non2xx, 0);
  t.ok(handshakes <= 3, `one handshake per connection (${handshakes})`);
  t.ok((r.throughputMiBps * 1024 * 1024) / r.requestsPerSec >= 1024, 'each answer carried the 1 KiB echoed back');
});
