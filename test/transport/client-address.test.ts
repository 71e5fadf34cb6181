import t from 'tap';
import http from 'node:http';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, type SeenRequest } from '../helpers/backends.js';

/** A GET from a chosen local address; the echo backend's view of X-Forwarded-For. */
function forwardedFor(host: string, port: number, localAddress: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const r = http.request({ host, port, path: '/echo/1.0.0/x', localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try { resolve((JSON.parse(Buffer.concat(chunks).toString()) as SeenRequest).headers['x-forwarded-for'] as string | undefined); } catch (e) { reject(e); }
      });
    });
    r.on('error', reject);
    r.end();
  });
}

t.test('X-Forwarded-For names each client, whichever called last', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  // The gateway remembers the text of the last IPv4 peer: switching peers must never reuse it.
  for (const from of ['127.0.0.2', '127.0.0.2', '127.0.0.1', '127.0.0.3', '127.0.0.2', '127.0.0.1']) {
    t.equal(await forwardedFor('127.0.0.1', s.home.ports.http, from), from, `a call from ${from}`);
  }
});

t.test('an IPv6 client is named in uWS\'s IPv6 text form', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, { transport: { passthru_http: { 'listener.bind-address': '::1' } } },
    { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const xff = await forwardedFor('::1', s.home.ports.http, '::1');
  t.match(xff, /^[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}$/, `an IPv6 address (${xff})`);
  t.match(xff, /1$/, 'the loopback address ::1');
  t.notMatch(xff, /\./, 'not an IPv4 dotted form');
});
