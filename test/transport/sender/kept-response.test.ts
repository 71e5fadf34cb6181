import t from 'tap';
import pino from 'pino';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml } from '../../helpers/home.js';
import { rawBackend, request } from '../../helpers/backends.js';
import { ownIoThread } from '../../helpers/own-io-thread.js';
import { keptResponse } from '../../../transport/sender/kept-response.js';

// A backend read that repeats the io thread's kept response (one whole response with a Content-Length body,
// and nothing else) is answered from it without llhttp (transport/sender/kept-response.ts). The backend here
// writes bytes by hand, each answer in one write (a read of its own), so that a test decides what a read
// holds; the client must get what llhttp makes of those bytes, and the counter of replayed reads says
// whether the kept response was used at all. Each test's bodies have a length of their own: the kept
// response outlives a test, and a read of the same head and length as another test's would be replayed.

/** `HTTP/1.1 200 OK` with a fixed Date, so that answers repeat byte for byte. */
const answer = (body: string, extra = ''): string =>
  `HTTP/1.1 200 OK\r\nDate: Sat, 28 Nov 2026 10:00:00 GMT\r\nContent-Type: text/plain\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;

/**
 * A backend that answers each request on a connection with the parts `plan` gives for it (by its request
 * line and its number), written 40 ms apart so that each is a read of its own.
 */
async function handWrittenBackend(t: { teardown(fn: () => unknown): void }, plan: (line: string, n: number) => string[]): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  return rawBackend(t, (s) => {
    s.setNoDelay(true);
    let pending = '';
    let chain = Promise.resolve();
    s.on('data', (d: Buffer) => {
      pending += d.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const line = pending.slice(0, pending.indexOf('\r\n'));
        pending = pending.slice(end + 4);
        const parts = plan(line, n++);
        chain = chain.then(async () => {
          for (const p of parts) {
            if (s.destroyed) return;
            s.write(p);
            await new Promise((r) => setTimeout(r, 40));
          }
        });
      }
    });
  });
}

async function gateway(t: Parameters<typeof startSluice>[0], backendUrl: string): Promise<number> {
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/kr.toml`]: apiToml({ name: 'Kr', context: '/kr', version: 'v1', production: backendUrl }),
  });
  const { thread, port } = await ownIoThread(t, s, pino({ level: 'silent' }));
  await thread.listen();
  return port;
}

const call = (port: number, path: string, method = 'GET') => request(`http://127.0.0.1:${port}/kr/v1${path}`, { method });

t.test('a backend read that repeats the kept response is replayed, each answer with its own body (control)', async (t) => {
  const be = await handWrittenBackend(t, (_line, n) => [answer(['aaaa', 'bbbb', 'cccc', 'dddd'][n % 4]!)]);
  const port = await gateway(t, be.url);
  const before = keptResponse.hits;
  const bodies: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await call(port, '/x');
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'text/plain');
    bodies.push(r.text);
  }
  t.same(bodies, ['aaaa', 'bbbb', 'cccc', 'dddd'], 'the body of each read, not the kept one');
  t.equal(keptResponse.hits - before, 3, 'all but the first read were replayed');
  t.equal(be.connections(), 1, 'on one kept-alive backend connection');
});

t.test('the kept bytes after a head the backend began are part of that head (attack)', async (t) => {
  const kept = answer('keep2');
  // The second answer begins a head, then the kept bytes end it: its status line becomes a field value.
  const be = await handWrittenBackend(t, (_line, n) => (n === 0 ? [kept] : n === 1 ? ['HTTP/1.1 200 OK\r\nX-Pad: ', kept] : [kept]));
  const port = await gateway(t, be.url);
  const before = keptResponse.hits;
  t.equal((await call(port, '/one')).text, 'keep2');
  const r = await call(port, '/two');
  t.equal(r.status, 200);
  t.equal(r.headers['x-pad'], 'HTTP/1.1 200 OK', 'the kept bytes were read inside the begun head');
  t.equal(r.text, 'keep2');
  t.equal(keptResponse.hits - before, 0, 'nothing was replayed');
  // The parser stands at a response's first byte again after that answer: the next repeat is replayed.
  // What the begun head made was not kept: a read that was not one whole response from its first byte.
  const third = await call(port, '/three');
  t.equal(third.text, 'keep2');
  t.equal(third.headers['x-pad'], undefined, 'the replay is the first answer\'s head, not the second\'s');
  t.equal(keptResponse.hits - before, 1);
});

t.test('the kept bytes as the answer to a HEAD are a head and garbage, as llhttp reads them (attack)', async (t) => {
  // A backend that wrongly sends a body to HEAD: llhttp reads no body after a HEAD's answer, so the bytes
  // after its head are not a response, and the connection is not used again.
  const be = await handWrittenBackend(t, () => [answer('body33')]);
  const port = await gateway(t, be.url);
  const before = keptResponse.hits;
  t.equal((await call(port, '/x')).text, 'body33');
  const h = await call(port, '/x', 'HEAD');
  t.equal(h.status, 200);
  t.equal(h.body.length, 0, 'no body to the client');
  t.equal(keptResponse.hits - before, 0, 'the HEAD answer was parsed');
  const after = await call(port, '/x');
  t.equal(after.text, 'body33', 'the next call is answered whole');
  t.equal(be.connections(), 2, 'the connection that sent bytes after the HEAD answer was not used again');
  t.equal(keptResponse.hits - before, 1, 'a new connection stands at a response\'s first byte: its repeat is replayed');
});

t.test('a read with the kept response and one byte more is parsed, and the connection is not used again (attack)', async (t) => {
  const be = await handWrittenBackend(t, (_line, n) => [n === 1 ? `${answer('keep444')}H` : answer('keep444')]);
  const port = await gateway(t, be.url);
  const before = keptResponse.hits;
  for (let i = 0; i < 3; i++) t.equal((await call(port, '/x')).text, 'keep444', `call ${i + 1}`);
  t.equal(keptResponse.hits - before, 1, 'only the third read repeated the kept one');
  t.equal(be.connections(), 2, 'bytes past the response closed the backend connection');
});

t.test('a read with the kept head and fewer body bytes is parsed; the body goes on in the next read (attack)', async (t) => {
  const full = answer('abcdefgh');
  const be = await handWrittenBackend(t, (_line, n) => (n === 1 ? [full.slice(0, -2), full.slice(-2)] : [full]));
  const port = await gateway(t, be.url);
  const before = keptResponse.hits;
  for (let i = 0; i < 3; i++) t.equal((await call(port, '/x')).text, 'abcdefgh', `call ${i + 1}`);
  t.equal(keptResponse.hits - before, 1, 'the split answer was read past the parser, the third replayed');
  t.equal(be.connections(), 1);
});

t.test('a read with an interim 100 before the response is never kept (attack)', async (t) => {
  const both = `HTTP/1.1 100 Continue\r\n\r\n${answer('ninebytes')}`;
  const be = await handWrittenBackend(t, () => [both]);
  const port = await gateway(t, be.url);
  const before = keptResponse.hits;
  for (let i = 0; i < 3; i++) {
    const r = await call(port, '/x');
    t.equal(r.status, 200, `call ${i + 1}: the final status`);
    t.equal(r.text, 'ninebytes', `call ${i + 1}: its body`);
  }
  t.equal(keptResponse.hits - before, 0, 'nothing was replayed');
});
