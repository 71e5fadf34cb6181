import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { rawBackend, onRequestHead, request, rawExchange } from '../helpers/backends.js';
import { KeptFields } from '../../transport/kept-fields.js';

// The client's head keeps the text made from the previous response's backend fields while the next
// response repeats them (transport/kept-fields.ts): every response must still carry exactly its own
// backend's fields, whatever the response before it on the thread had. The whole head is kept too while
// its pieces repeat (kept-line.ts, KeptJoin): each response must still have its own status, length and
// Connection.

/** Backend heads by the last path segment: same names with other values, other case, other counts. */
const HEADS: Record<string, string[]> = {
  plain: ['Content-Type: text/plain', 'X-A: 1'],
  other: ['Content-Type: text/plain', 'X-A: 2'],
  cased: ['Content-Type: text/plain', 'x-a: 1'],
  listed: ['Content-Type: text/plain', 'Connection: keep-alive, x-a', 'X-A: 1'],
  more: ['Content-Type: text/plain', 'X-A: 1', 'X-B: 3'],
  swapped: ['X-A: 1', 'Content-Type: text/plain'],
};
/** What the client must see of each (hop-by-hop and framing fields are the front door's own). */
const SEEN: Record<string, string[]> = {
  plain: ['Content-Type', 'text/plain', 'X-A', '1'],
  other: ['Content-Type', 'text/plain', 'X-A', '2'],
  cased: ['Content-Type', 'text/plain', 'x-a', '1'],
  listed: ['Content-Type', 'text/plain'],
  more: ['Content-Type', 'text/plain', 'X-A', '1', 'X-B', '3'],
  swapped: ['X-A', '1', 'Content-Type', 'text/plain'],
};
const OWN = new Set(['date', 'server', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);

t.test('each response carries its own backend fields, response after response on one io thread', async (t) => {
  const answer = (sock: import('node:net').Socket): void => onRequestHead(sock, (head) => {
    const variant = /^GET \S*\/([a-z]+) /.exec(head)?.[1] ?? 'plain';
    sock.write(`HTTP/1.1 200 OK\r\n${HEADS[variant]!.join('\r\n')}\r\ncontent-length: 2\r\n\r\nok`);
    answer(sock);
  });
  const be = await rawBackend(t, answer);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/r.toml`]: apiToml({ name: 'R', context: '/r', production: be.url }),
  });
  const plan = ['plain', 'plain', 'other', 'plain', 'cased', 'listed', 'plain', 'more', 'plain', 'swapped', 'plain', 'other', 'other'];
  for (const variant of plan) {
    const r = await request(s.url(`/r/1.0.0/${variant}`));
    t.equal(r.status, 200, `${variant}: answered`);
    const fields: string[] = [];
    for (let i = 0; i < r.rawHeaders.length; i += 2) {
      if (!OWN.has(r.rawHeaders[i]!.toLowerCase())) fields.push(r.rawHeaders[i]!, r.rawHeaders[i + 1]!);
    }
    t.same(fields, SEEN[variant], `${variant}: exactly its own backend's fields`);
  }
});

t.test('kept fields are found only for the same fields under the same owner, and are a copy', async (t) => {
  const kept = new KeptFields();
  const rules = {};
  const fields = ['Content-Type', 'text/plain', 'X-A', '1'];
  t.equal(kept.find(fields, rules), null, 'nothing kept yet');
  t.equal(kept.keep(fields, rules, 'text'), 'text');
  t.equal(kept.find(['Content-Type', 'text/plain', 'X-A', '1'], rules), 'text', 'equal fields in a new array');
  t.equal(kept.find(['Content-Type', 'text/plain', 'X-A', '2'], rules), null, 'another value');
  t.equal(kept.find(['Content-Type', 'text/plain'], rules), null, 'fewer fields');
  t.equal(kept.find(fields, {}), null, 'other rules');
  fields[3] = '2';
  t.equal(kept.find(fields, rules), null, 'the caller changed its array after keeping: not the kept fields');
  t.equal(kept.find(['Content-Type', 'text/plain', 'X-A', '1'], rules), 'text', 'the kept copy is unchanged');
});

t.test('each head has its own status, length and Connection, head after head on one io thread', async (t) => {
  const answer = (sock: import('node:net').Socket): void => onRequestHead(sock, (head) => {
    const what = /^GET \S*\/([a-z]+)(\d+) /.exec(head);
    const body = 'x'.repeat(Number(what?.[2] ?? 1));
    const status = what?.[1] === 's' ? '404 Not Found' : '200 OK';
    sock.write(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    answer(sock);
  });
  const be = await rawBackend(t, answer);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/r.toml`]: apiToml({ name: 'R', context: '/r', production: be.url }),
  });
  const port = s.home.ports.http;
  const plan: [string, string, string, number, string | null][] = [
    // path, version, extra request field, then the status, length and Connection the client must see
    ['len3', '1.1', '', 200, null], ['len3', '1.1', '', 200, null], ['len5', '1.1', '', 200, null],
    ['len5', '1.0', 'Connection: keep-alive\r\n', 200, 'keep-alive'], ['len5', '1.1', 'Connection: close\r\n', 200, 'close'],
    ['len5', '1.1', '', 200, null], ['s2', '1.1', '', 404, null], ['len2', '1.1', '', 200, null], ['s2', '1.1', '', 404, null],
  ];
  for (const [path, version, extra, status, connection] of plan) {
    const r = await rawExchange(port, `GET /r/1.0.0/${path} HTTP/${version}\r\nHost: gw\r\n${extra}\r\n`, connection === 'close' ? 1500 : 300);
    const head = r.text.slice(0, r.text.indexOf('\r\n\r\n'));
    const lines = head.split('\r\n');
    const what = `${path} over HTTP/${version}${extra ? ` with ${extra.trim()}` : ''}`;
    t.match(lines[0], new RegExp(`^HTTP/1\\.1 ${status} `), `${what}: its own status`);
    const length = Number(/\d+$/.exec(path)![0]);
    t.same(lines.filter((l) => l.toLowerCase().startsWith('content-length:')), [`content-length: ${length}`], `${what}: its own length`);
    t.same(lines.filter((l) => l.toLowerCase().startsWith('connection:')), connection === null ? [] : [`connection: ${connection}`], `${what}: its own Connection`);
    t.equal(r.text.slice(head.length + 4), 'x'.repeat(length), `${what}: its own body`);
  }
});
