// A HEAD that the gateway answers itself (a fault, the token front's 405) gets the head of the GET answer
// and no body: a body there would be read as the next response on a keep-alive connection.
import t from 'tap';
import net from 'node:net';
import { startSecured, securedApiToml } from '../helpers/secured.js';
import { echoBackend } from '../helpers/backends.js';

/** Two requests on one connection, the second once the first was answered; what came back. */
function sequential(port: number, first: string, second: string, ms = 1500): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(first));
    s.once('data', () => setTimeout(() => s.write(second), 100));
    let text = '';
    s.on('data', (d) => { text += d.toString('latin1'); });
    s.on('error', () => {});
    const timer = setTimeout(() => { s.destroy(); resolve(text); }, ms);
    s.on('close', () => { clearTimeout(timer); resolve(text); });
  });
}

t.test('HEAD answered by the gateway or a backend: the GET answer\'s head, no body, and the next response on the connection is intact', async (t) => {
  // The backend reports the length of what a GET would return, as RFC 9110 §9.3.2 lets it.
  const be = await echoBackend(t, (req, res) => {
    if (req.url !== '/sized') return false;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '11' });
    res.end(req.method === 'HEAD' ? undefined : 'hello world');
    return true;
  });
  const s = await startSecured(t, { apis: {
    secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }),
    open: securedApiToml({ name: 'Open', context: '/open', production: be.url, authType: 'None' }),
  } });
  // The last path goes to the backend, which answers HEAD with a Content-Length.
  for (const path of ['/secure/1.0.0/x', '/token', '/nothing/1.0.0/x', '/open/1.0.0/sized']) {
    const text = await sequential(s.home.ports.http, `HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const first = text.indexOf('\r\n\r\n');
    t.ok(first > 0, `${path}: a head`);
    const head = text.slice(0, first);
    const length = Number(/content-length: *(\d+)/i.exec(head)?.[1]);
    t.ok(length > 0, `${path}: HEAD reports the GET body's length (${length})`);
    const rest = text.slice(first + 4);
    t.match(rest, /^HTTP\/1\.1 \d{3} /, `${path}: the second response starts right after the HEAD answer's head`);
    const second = rest.indexOf('\r\n\r\n');
    t.equal(rest.length - second - 4, length, `${path}: the GET answer carries the body HEAD announced`);
  }
});
