import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { freePort } from '../helpers/ports.js';
import { h2loadArgs, latencyOfLog, parseH2loadSummary, runH2load } from '../../bench/lib/h2load.js';

t.test('h2load\'s summary: calls done in the measured part, errors, and answers of 400 and more', async (t) => {
  // A real run of Debian's h2load 1.52 against a server answering 503 (the fixture's README).
  const s = parseH2loadSummary(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/bench/h2load-1.52-output.txt'), 'utf8'));
  t.same(s, { done: 61755, errored: 0, timeout: 0, non2xx: 61755 });
  t.throws(() => parseH2loadSummary('starting benchmark...\n'), /h2load printed no summary/);
});

t.test('latency percentiles from the per-request log, by nearest rank, in milliseconds', async (t) => {
  // 100 calls of 1..100 ms, in no order: the p99 is the 99th smallest.
  const lines = Array.from({ length: 100 }, (_, i) => `17959626083514${String(i).padStart(2, '0')}\t200\t${((i * 37) % 100 + 1) * 1000}`);
  const l = latencyOfLog(lines.join('\n') + '\n');
  t.equal(l.calls, 100);
  t.same(l.latencyMs, { p50: 50, p90: 90, p99: 99, p999: 100, max: 100 });
  t.same(latencyOfLog('1\t200\t2500\n').latencyMs, { p50: 2.5, p90: 2.5, p99: 2.5, p999: 2.5, max: 2.5 }, 'one call is every percentile');
  t.throws(() => latencyOfLog('1\t200\n'), /not a request line/, 'a line without its latency is refused, not read as 0');
  t.throws(() => latencyOfLog('1\t200\tsoon\n'), /not a request line/);
});

t.test('h2load\'s arguments: HTTP/1.1, one thread, the warm-up and measured parts, a POST only with a body', async (t) => {
  const args = h2loadArgs({ url: 'https://127.0.0.1:1/e', connections: 100, durationSec: 8, warmupSec: 2, method: 'POST', headers: { authorization: 'Bearer a.b.c' } }, { log: '/l', body: '/b' });
  t.same(args, ['--h1', '-t1', '-c100', '-D8', '--warm-up-time=2', '--log-file=/l', '-d', '/b', '-H', 'authorization: Bearer a.b.c', 'https://127.0.0.1:1/e']);
  t.throws(() => h2loadArgs({ url: 'http://x/', connections: 1, durationSec: 1, warmupSec: 1, headers: { a: 'b\r\nHost: evil' } }, { log: '/l' }), /line break/, 'a header cannot smuggle another');
  t.throws(() => h2loadArgs({ url: 'http://x/', connections: 1, durationSec: 1, warmupSec: 1, method: 'POST' }, { log: '/l' }), /needs a body/);
});

t.test('a real h2load run over HTTPS keep-alive counts only the calls after its warm-up, on the connections it warmed', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-h2load-tls-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const body = Buffer.from(JSON.stringify({ payload: 'x'.repeat(1000) }));
  let handshakes = 0;
  let seen = 0;
  let wrong = 0;
  let seenAtMeasure = -1;
  const s = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')), keepAliveTimeout: 60_000 }, (req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen++;
      if (req.method !== 'POST' || req.url !== '/echo' || req.headers['authorization'] !== 'Bearer a"b' || !Buffer.concat(parts).equals(body)) wrong++;
      res.end(Buffer.concat(parts));
    });
  });
  s.on('secureConnection', () => { handshakes++; });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); }));
  const url = `https://127.0.0.1:${(s.address() as net.AddressInfo).port}/echo`;
  const r = await runH2load({ url, connections: 3, durationSec: 1, warmupSec: 1, method: 'POST', body, headers: { authorization: 'Bearer a"b' }, onMeasured: () => { seenAtMeasure = seen; } });
  t.equal(wrong, 0, 'every call as asked');
  t.equal(r.errors + r.non2xx, 0);
  t.ok(handshakes <= 3, `the measured calls went over the connections the warm-up opened (${handshakes} handshakes)`);
  t.ok(seenAtMeasure > 0, `the warm-up made calls (${seenAtMeasure})`);
  const measured = seen - seenAtMeasure;
  t.ok(r.requests < seen, `the warm-up's calls are not counted (${r.requests} of ${seen})`);
  t.ok(Math.abs(r.requests - measured) <= Math.max(50, measured * 0.2), `the count is the calls after the warm-up (${r.requests}, the server saw ${measured})`);
  t.ok(r.latencyMs.p50 > 0 && r.latencyMs.p50 <= r.latencyMs.p99 && r.latencyMs.p99 <= r.latencyMs.max);
  t.ok((r.throughputMiBps * 1024 * 1024) / r.requestsPerSec >= body.length, 'each answer carried the body echoed back');
});

t.test('answers of 400 and more are counted; a load that completes no call fails, saying why', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-h2load-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const server = net.createServer((c) => {
    c.on('data', () => c.write('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 2\r\n\r\nno'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const r = await runH2load({ url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, connections: 2, durationSec: 1, warmupSec: 1 });
  t.ok(r.requests > 0);
  t.equal(r.non2xx, r.requests);
  // A port claimed for this process that nothing listens on.
  await t.rejects(runH2load({ url: `http://127.0.0.1:${await freePort()}/`, connections: 2, durationSec: 1, warmupSec: 1 }), /completed no call/);
});
