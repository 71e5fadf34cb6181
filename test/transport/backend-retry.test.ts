import t from 'tap';
import type net from 'node:net';
import { startSluice, type TestSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { faultOf, rawBackend, request } from '../helpers/backends.js';

// When the sender sends a request again. A backend may close a kept-alive connection just as the gateway picks
// it; the request then went nowhere and goes out once more on a new connection. RFC 9112 §9.3.1: "A proxy MUST
// NOT automatically retry non-idempotent requests", and a backend that began its reply took the request.

/** Where the backend saw a path: `#0` is a connection's first request, `#1` and on a kept connection's later ones. */
const at = (seen: string[], path: string): string[] => seen.filter((x) => x.includes(` ${path} `)).map((x) => x.replace(/#[1-9]\d*$/, '#kept'));

/**
 * The first request on each connection is answered 200 `fresh`. A later one is answered as its path says:
 * `/silent-close` ends the connection without a byte of reply (the stale close the retry is for),
 * `/close-mid-head` writes part of a status line first; anything else is answered 200 `kept`.
 */
function backend(seen: string[]) {
  return (s: net.Socket): void => {
    let buf = '';
    let index = 0;
    s.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const [method, path] = buf.slice(0, buf.indexOf(' HTTP/')).split(' ');
        buf = buf.slice(end + 4);
        seen.push(`${method} ${path} #${index}`);
        if (index++ === 0) s.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh');
        else if (path === '/silent-close') s.end();
        else if (path === '/close-mid-head') s.end('HTTP/1.1 200 OK\r\nContent-Le');
        else s.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nkept');
      }
    });
  };
}

async function setUp(t: Tap.Test): Promise<{ s: TestSluice; seen: string[]; warm: () => Promise<void> }> {
  const seen: string[] = [];
  const be = await rawBackend(t, backend(seen));
  const s = await startSluice(t, {}, { [`${API_DIR}/rt.toml`]: apiToml({ name: 'Rt', context: '/rt', production: be.url }) });
  // A call that leaves a kept connection for the next call to be sent on.
  const warm = async (): Promise<void> => { t.equal((await request(s.url('/rt/1.0.0/warm'))).status, 200, 'a kept connection'); };
  return { s, seen, warm };
}

t.test('an idempotent request without a body, on a kept connection the backend closed without a reply, goes out once more', async (t) => {
  const { s, seen, warm } = await setUp(t);
  for (const method of ['GET', 'HEAD', 'DELETE', 'PUT']) {
    seen.length = 0;
    await warm();
    const r = await request(s.url('/rt/1.0.0/silent-close'), { method });
    t.equal(r.status, 200, `${method}: answered from the new connection`);
    t.same(at(seen, '/silent-close'), [`${method} /silent-close #kept`, `${method} /silent-close #0`], `${method}: sent on the kept connection, then on a new one`);
  }
});

t.test('a request with a method that is not idempotent is never sent twice: 502 with the fault (RFC 9112 §9.3.1)', async (t) => {
  const { s, seen, warm } = await setUp(t);
  for (const method of ['POST', 'PATCH']) {
    seen.length = 0;
    await warm();
    const r = await request(s.url('/rt/1.0.0/silent-close'), { method });
    t.equal(r.status, 502, `${method}: refused`);
    t.equal(faultOf(r)?.code, 101508, `${method}: closed by the backend in REQUEST_DONE`);
    t.same(at(seen, '/silent-close'), [`${method} /silent-close #kept`], `${method}: the backend got it once`);
  }
});

t.test('a request whose reply had begun when the backend closed is not sent again: 502 with the fault', async (t) => {
  const { s, seen, warm } = await setUp(t);
  await warm();
  const r = await request(s.url('/rt/1.0.0/close-mid-head'));
  t.equal(r.status, 502);
  t.ok(faultOf(r), 'in the fault format');
  t.same(at(seen, '/close-mid-head'), ['GET /close-mid-head #kept'], 'the backend got it once');
});
