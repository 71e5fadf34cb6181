import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { onEachRequestHead, rawBackend, request } from '../helpers/backends.js';
import { rawRequest, recordingBackend } from '../helpers/recording-backend.js';

// The trailer section of a chunked message (RFC 9112 §7.1.2) belongs to that message. llhttp hands its fields
// over through the same callback as a long head's (kOnHeaders, at the message's end): they must not be taken
// for the start of the next head on the kept connection, where a backend's trailer would reach another call,
// maybe another client's, as header fields (found in stop 48: the sender gave the next response a trailer's
// Set-Cookie; a trailer's Transfer-Encoding broke the next call). A trailer field that frames the message or
// manages the connection (RFC 9110 §6.5.1 forbids both there) ends the connection, as llhttp does.

const TRAILERS: Record<string, string> = {
  'set-cookie': 'Set-Cookie: session=stolen\r\n',
  'x-field': 'X-Trailer-Leak: 1\r\n',
  'transfer-encoding': 'Transfer-Encoding: chunked 1\r\n',
  'connection-close': 'Connection: close\r\n',
  'many': Array.from({ length: 40 }, (_, i) => `X-Trailer-${i}: ${i}\r\n`).join(''),
};

t.test('a chunked response\'s trailer fields never reach the next response on the kept connection', async (t) => {
  let k = 0;
  const be = await rawBackend(t, (s) => onEachRequestHead(s, (_i, _m, path) => {
    const name = path.split('/')[1] ?? '';
    const trailer = TRAILERS[name];
    if (trailer !== undefined) s.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n${trailer}\r\n`);
    else s.write(`HTTP/1.1 200 OK\r\nX-Next: ${++k}\r\nContent-Length: 4\r\n\r\nnext`);
  }));
  const s = await startSluice(t, {}, { [`${API_DIR}/tr.toml`]: apiToml({ name: 'Tr', context: '/tr', production: be.url }) });
  for (const name of Object.keys(TRAILERS)) {
    const first = await request(s.url(`/tr/1.0.0/${name}/a`), { timeoutMs: 5000 });
    t.same({ status: first.status, text: first.text }, { status: 200, text: 'ok' }, `${name}: the chunked response reaches its client`);
    const next = await request(s.url(`/tr/1.0.0/next/${name}`), { timeoutMs: 5000 });
    t.same({ status: next.status, text: next.text }, { status: 200, text: 'next' }, `${name}: the next call gets its own response`);
    const leaked = next.rawHeaders.filter((_v, i) => i % 2 === 0 && /^(set-cookie|x-trailer|transfer-encoding)/i.test(next.rawHeaders[i]!));
    t.same(leaked, [], `${name}: and none of the trailer's fields with it`);
    t.notOk(next.headers['set-cookie'], `${name}: no cookie of another response`);
  }
});

t.test('a chunked request\'s trailer fields never reach the next request on the client\'s connection', async (t) => {
  const be = await recordingBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/tq.toml`]: apiToml({ name: 'Tq', context: '/tq', production: be.url }) });
  for (const [name, trailer] of Object.entries(TRAILERS)) {
    be.reset();
    const bytes = `POST /tq/1.0.0/${name} HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n${trailer}\r\n` +
      `GET /tq/1.0.0/next-${name} HTTP/1.1\r\nHost: gw\r\n\r\n`;
    const r = await rawRequest(s.home.ports.http, [Buffer.from(bytes, 'latin1')], 2, 4000);
    const next = be.seen.find((x) => x.line.includes(`/next-${name}`));
    if (next === undefined) {
      // A trailer the door refuses (a framing field) closes the connection after the first answer: nothing follows it.
      t.ok(r.statuses.length >= 1 && r.closed, `${name}: answered, then the connection closed`, { statuses: r.statuses });
      continue;
    }
    const leaked = next.rawHeaders.filter((_v, i) => i % 2 === 0 && /^(set-cookie|x-trailer|transfer-encoding)/i.test(next.rawHeaders[i]!));
    t.same(leaked, [], `${name}: the next request carries none of the trailer's fields`);
  }
});
