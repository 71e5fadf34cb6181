// Body pieces are lent, not copied, on their way through the gateway: a request body of known length is read
// past llhttp as views of the front door's read buffer, and the writers copy what they send into the io
// thread's memory of the turn (transport/turn-arena.ts), which the next turn reuses. What must hold: the
// bytes every backend and client reads are the bytes sent, when several requests share one read, when a
// body is split anywhere, and when a peer that does not read makes libuv keep bytes past the turn (that
// memory must not be reused then). The peers check SHA-256 digests of distinct random bodies.
import t from 'tap';
import crypto from 'node:crypto';
import net from 'node:net';
import { startSluice, type TestSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { rawBackend } from '../helpers/backends.js';

const sha = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

interface Seen { path: string; body: Buffer }

/** Calls `each` for every whole message (body by Content-Length) at the front of `buf`; returns what is left. */
function takeMessages(buf: Buffer, each: (head: string, body: Buffer) => void): Buffer {
  for (;;) {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return buf;
    const head = buf.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buf.length < end + 4 + length) return buf;
    each(head, Buffer.from(buf.subarray(end + 4, end + 4 + length)));
    buf = buf.subarray(end + 4 + length);
  }
}

/**
 * A backend that reads requests one after another on each connection (bodies by Content-Length) and answers
 * each with the SHA-256 of its body. `pauseMs`: it reads nothing of a connection for that long first, so
 * that what the gateway writes waits in its socket.
 */
async function digestBackend(t: Tap.Test, pauseMs = 0): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const be = await rawBackend(t, (sock) => {
    let buf = Buffer.alloc(0);
    if (pauseMs > 0) { sock.pause(); setTimeout(() => sock.resume(), pauseMs); }
    sock.on('data', (d: Buffer) => {
      buf = takeMessages(Buffer.concat([buf, d]), (head, body) => {
        seen.push({ path: head.split(' ')[1]!, body });
        const digest = sha(body);
        sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${digest.length}\r\n\r\n${digest}`);
      });
    });
  });
  return { url: be.url, seen };
}

async function gateway(t: Tap.Test, backend: string): Promise<TestSluice> {
  return startSluice(t, {}, { [`${API_DIR}/lent.toml`]: apiToml({ name: 'lent', context: '/lent', production: backend }) });
}

/** Writes `parts` to the gateway (a pause between them), and reads `answers` responses; returns their bodies. */
function exchange(port: number, parts: Buffer[], answers: number, pauseMs = 30): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1');
    c.setNoDelay(true);
    let got = Buffer.alloc(0);
    const bodies: string[] = [];
    const timer = setTimeout(() => { c.destroy(); reject(new Error(`${bodies.length} of ${answers} answers; then ${JSON.stringify(got.toString('latin1').slice(0, 300))}`)); }, 20000);
    c.on('data', (d: Buffer) => {
      got = takeMessages(Buffer.concat([got, d]), (head, body) => {
        bodies.push(head.startsWith('HTTP/1.1 200 ') ? body.toString('latin1') : `(${head.split('\r\n')[0]})`);
      });
      if (bodies.length === answers) { clearTimeout(timer); c.destroy(); resolve(bodies); }
    });
    c.on('error', (e) => { clearTimeout(timer); reject(e); });
    c.on('connect', async () => {
      for (let i = 0; i < parts.length; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
        c.write(parts[i]!);
      }
    });
  });
}

const post = (path: string, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`POST /lent/1.0.0${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'), body]);

t.test('requests that share a read reach the backend exact, however the bytes are split', async (t) => {
  const be = await digestBackend(t);
  const s = await gateway(t, be.url);
  const a = crypto.randomBytes(700);
  const b = crypto.randomBytes(5);
  const wire = Buffer.concat([post('/a', a), post('/b', b), Buffer.from('GET /lent/1.0.0/c HTTP/1.1\r\nhost: x\r\n\r\n', 'latin1')]);
  const headA = wire.indexOf('\r\n\r\n') + 4;
  const endA = headA + a.length;
  // Inside the first head, at its end, inside and at the end of its body, inside the second head and body.
  const cuts = [0, 10, headA - 1, headA, headA + 1, headA + 350, endA - 1, endA, endA + 20, endA + (wire.indexOf('\r\n\r\n', endA) - endA) + 6];
  for (const cut of cuts) {
    const parts = cut === 0 ? [wire] : [wire.subarray(0, cut), wire.subarray(cut)];
    const before = be.seen.length;
    const answers = await exchange(s.home.ports.http, parts, 3);
    t.same(answers.slice(0, 2), [sha(a), sha(b)], `split at ${cut}: the backend read both bodies exact`);
    t.same(be.seen.slice(before).map((x) => x.path), ['/a', '/b', '/c'], `split at ${cut}: three requests, in order`);
    t.equal(be.seen[be.seen.length - 1]!.body.length, 0, `split at ${cut}: the GET after them has no body`);
  }
});

t.test('bodies a backend does not read at once reach it exact while other calls go on', async (t) => {
  const be = await digestBackend(t, 400);
  const s = await gateway(t, be.url);
  // Bodies well over what a loopback socket takes before its reader reads, on connections of their own at
  // once: the gateway's writes wait in libuv while the other calls' pieces fill the turns after them.
  const bodies = Array.from({ length: 4 }, () => crypto.randomBytes(6 * 1024 * 1024 + Math.floor(Math.random() * 1000)));
  const answers = await Promise.all(bodies.map((body, i) => exchange(s.home.ports.http, [post(`/big${i}`, body)], 1)));
  t.same(answers.map((x) => x[0]), bodies.map(sha), 'every body arrived exact');
});

t.test('responses a client does not read at once reach it exact while other calls go on', async (t) => {
  const bodies = new Map<string, Buffer>();
  const be = await rawBackend(t, (sock) => {
    let buf = '';
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      let end: number;
      while ((end = buf.indexOf('\r\n\r\n')) >= 0) {
        const path = buf.slice(0, end).split(' ')[1]!;
        buf = buf.slice(end + 4);
        const body = bodies.get(path.slice(1))!;
        sock.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'), body]));
      }
    });
  });
  const s = await gateway(t, be.url);
  for (let i = 0; i < 4; i++) bodies.set(`r${i}`, crypto.randomBytes(6 * 1024 * 1024 + i * 977));
  const read = (name: string): Promise<string> => new Promise((resolve, reject) => {
    const c = net.connect(s.home.ports.http, '127.0.0.1');
    const pieces: Buffer[] = [];
    let total = 0;
    const timer = setTimeout(() => { c.destroy(); reject(new Error(`${name}: ${total} bytes`)); }, 30000);
    c.on('connect', () => {
      c.write(`GET /lent/1.0.0/${name} HTTP/1.1\r\nhost: x\r\n\r\n`);
      // Reads nothing for a while: the gateway's writes to this client wait in libuv.
      c.pause();
      setTimeout(() => c.resume(), 400);
    });
    c.on('data', (d: Buffer) => {
      pieces.push(d);
      total += d.length;
      const all = Buffer.concat(pieces);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(all.subarray(0, end).toString('latin1'))?.[1] ?? -1);
      if (all.length >= end + 4 + length) { clearTimeout(timer); c.destroy(); resolve(sha(all.subarray(end + 4, end + 4 + length))); }
    });
    c.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
  const names = [...bodies.keys()];
  const got = await Promise.all(names.map(read));
  t.same(got, names.map((n) => sha(bodies.get(n)!)), 'every response arrived exact');
});
