import t from 'tap';
import type net from 'node:net';
import { startSluice } from '../../helpers/sluice.js';
import { apiToml, API_DIR } from '../../helpers/home.js';
import { rawBackend, onRequestHead, rawExchange } from '../../helpers/backends.js';

// The front door keeps the previous response's status line and Content-Length line as text
// (transport/front-door/client-exchange.ts): each response must still carry its own, whatever came before
// it on the thread, and a reason phrase that differs under the same code is its own line too.

const ANSWERS: Record<string, [string, string]> = {
  a: ['200 OK', '{"a":1}'],
  b: ['200 Fine', '{"b":22}'],
  c: ['404 Not Found', '{"c":333}'],
  d: ['200 OK', '{"d":4444}'],
};

t.test('every response has its own status line and Content-Length, whatever the one before had', async (t) => {
  const answer = (sock: net.Socket): void => onRequestHead(sock, (head) => {
    const key = (head.split(' ')[1] ?? '/').slice(-1);
    const [status, body] = ANSWERS[key] ?? ['500 Internal Server Error', '{}'];
    sock.write(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    answer(sock); // the next request on this keep-alive connection
  });
  const be = await rawBackend(t, answer);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, { [`${API_DIR}/s.toml`]: apiToml({ name: 'Status', context: '/s', production: be.url }) });
  const port = Number(new URL(s.url('/')).port);
  for (const key of ['a', 'b', 'b', 'c', 'a', 'd', 'c', 'b']) {
    const r = await rawExchange(port, `GET /s/1.0.0/${key} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
    const [status, body] = ANSWERS[key]!;
    const lines = r.text.split('\r\n');
    t.equal(lines[0], `HTTP/1.1 ${status}`, `${key}: the status line`);
    t.ok(lines.includes(`content-length: ${body.length}`), `${key}: its own content-length (${body.length})`);
    t.ok(r.text.endsWith(`\r\n\r\n${body}`), `${key}: its own body`);
  }
});
