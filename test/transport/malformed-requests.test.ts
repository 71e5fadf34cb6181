import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, rawExchange } from '../helpers/backends.js';

t.test('malformed framing is refused and never forwarded', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const port = s.home.ports.http;
  const cases: [string, string][] = [
    ['two different Content-Length headers', 'POST /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello!'],
    ['Content-Length with Transfer-Encoding', 'POST /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n'],
    ['a bad chunk size', 'POST /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'],
    ['a non-numeric Content-Length', 'POST /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\nhello'],
    ['not HTTP at all', 'HELLO WORLD\r\n\r\n'],
  ];
  for (const [what, bytes] of cases) {
    const r = await rawExchange(port, bytes);
    // uWS refuses framing errors by closing the connection (or waits for a request line that never comes);
    // Sluice answers 400 where it sees the conflict itself.
    const refused = r.closed || /^HTTP\/1\.1 400/.test(r.text) || r.text === '';
    t.ok(refused, `${what}: refused (${JSON.stringify(r.text.slice(0, 40))}, closed=${r.closed})`);
    t.notMatch(r.text, /^HTTP\/1\.1 200/, `${what}: not answered as a good request`);
  }
  t.equal(be.seen.length, 0, 'the backend saw none of them');
  const good = await rawExchange(port, 'GET /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\n\r\n', 800);
  t.match(good.text, /^HTTP\/1\.1 200/, 'the gateway still serves');
});

t.test('a duplicate Content-Length is answered 400 with a fault body and the connection closed', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const r = await rawExchange(s.home.ports.http, 'POST /echo/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello!');
  t.match(r.text, /^HTTP\/1\.1 400/);
  t.match(r.text, /"code":400/);
  t.ok(r.closed, 'connection closed: where the next request starts is not known');
  t.equal(be.seen.length, 0);
});
