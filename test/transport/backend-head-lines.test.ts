import t from 'tap';
import http from 'node:http';
import type net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { rawBackend, onRequestHead } from '../helpers/backends.js';

// The backend head keeps the previous call's Host line and X-Forwarded-For line as text
// (transport/header-rules.ts): each request must still carry its own backend's Host and its own client's
// address, whatever the call before it on the thread had, and a client's own X-Forwarded-* still count.

/** A keep-alive backend that records each request head and answers 200. */
async function recordingBackend(t: Tap.Test): Promise<{ url: string; port: number; heads: string[] }> {
  const heads: string[] = [];
  const answer = (sock: net.Socket): void => onRequestHead(sock, (head) => {
    heads.push(head);
    sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    answer(sock);
  });
  const be = await rawBackend(t, answer);
  return { url: be.url, port: be.port, heads };
}

function get(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { localAddress, headers, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); }).on('error', reject);
  });
}

const field = (head: string, name: string): string[] =>
  head.split('\r\n').filter((l) => l.toLowerCase().startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trim());

t.test('each backend request has its own Host and its own client in X-Forwarded-For, call after call', async (t) => {
  const a = await recordingBackend(t);
  const b = await recordingBackend(t);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/a.toml`]: apiToml({ name: 'A', context: '/a', production: a.url }),
    [`${API_DIR}/b.toml`]: apiToml({ name: 'B', context: '/b', production: b.url }),
  });
  const plan: [string, string, Record<string, string>][] = [
    ['a', '127.0.0.1', {}], ['b', '127.0.0.1', {}], ['b', '127.0.0.2', {}], ['a', '127.0.0.2', {}],
    ['a', '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }], ['a', '127.0.0.1', {}],
    ['b', '127.0.0.2', { 'x-forwarded-proto': 'https' }], ['b', '127.0.0.2', {}],
  ];
  for (const [which, from, headers] of plan) {
    const be = which === 'a' ? a : b;
    const before = be.heads.length;
    t.equal(await get(s.url(`/${which}/1.0.0/x`), from, headers), 200);
    const head = be.heads[before]!;
    const what = `${which} from ${from}${Object.keys(headers).length ? ` with ${JSON.stringify(headers)}` : ''}`;
    t.same(field(head, 'host'), [`127.0.0.1:${be.port}`], `${what}: Host is its own backend's`);
    const xff = headers['x-forwarded-for'];
    t.same(field(head, 'x-forwarded-for'), [xff === undefined ? from : `${xff}, ${from}`], `${what}: X-Forwarded-For ends with its own client`);
    t.same(field(head, 'x-forwarded-proto'), [headers['x-forwarded-proto'] ?? 'http'], `${what}: X-Forwarded-Proto`);
  }
});
