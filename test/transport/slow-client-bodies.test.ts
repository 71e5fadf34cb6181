import t from 'tap';
import net from 'node:net';
import crypto from 'node:crypto';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { rawBackend } from '../helpers/backends.js';

// A chunked response to a client that reads slowly: the client socket keeps what the client cannot take yet,
// and every byte must still arrive, in order, framed. The backend sends a small chunk and a large one in each
// write (the shape that made uWebSockets.js 20.30 drop a write when the client's socket was full, before the
// front door replaced it; and the shape in which a reused read buffer would corrupt what a socket holds).

const TOTAL = 6 * 1024 * 1024;

/** Byte `i` of the body: a pattern that shows a lost or repeated piece, not just a short count. */
function bodyBytes(from: number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = ((from + i) * 131 + ((from + i) >>> 13)) & 0xff;
  return b;
}
const expected = crypto.createHash('sha256').update(bodyBytes(0, TOTAL)).digest('hex');

/** A backend that answers every request with TOTAL bytes in pairs of (small, large) chunks per write. */
async function chunkingBackend(t: Parameters<typeof rawBackend>[0]) {
  return rawBackend(t, (s) => {
    let head = '';
    s.on('data', (d) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      head = '';
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      let sent = 0;
      let round = 0;
      const pump = (): void => {
        while (sent < TOTAL) {
          round++;
          const small = Math.min(1 + (round * 37) % 300, TOTAL - sent);
          const large = Math.min(20000 + (round * 7919) % 30000, TOTAL - sent - small);
          const parts: Buffer[] = [];
          for (const n of [small, large]) {
            if (n <= 0) continue;
            parts.push(Buffer.from(`${n.toString(16)}\r\n`, 'latin1'), bodyBytes(sent, n), Buffer.from('\r\n', 'latin1'));
            sent += n;
          }
          if (sent >= TOTAL) parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
          if (!s.write(Buffer.concat(parts))) { s.once('drain', pump); return; }
        }
      };
      pump();
    });
  });
}

/** GET over a raw socket, reading in bursts with pauses: the gateway meets a full socket again and again. */
function slowGet(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let sinceBreak = 0;
    const s = net.connect(port, '127.0.0.1', () => s.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`));
    s.on('data', (d) => {
      parts.push(d);
      sinceBreak += d.length;
      if (sinceBreak > 64 * 1024) {
        sinceBreak = 0;
        s.pause();
        setTimeout(() => s.resume(), 1);
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve(Buffer.concat(parts)));
    s.setTimeout(30000, () => {
      const got = Buffer.concat(parts);
      s.destroy(new Error(`client timeout: ${got.length} bytes, then nothing for 30 s (ending ${JSON.stringify(got.subarray(-40).toString('latin1'))})`));
    });
  });
}

/** Decodes a chunked response; the first framing error, if any, says where. */
function decodeChunked(raw: Buffer): { body: Buffer; error: string | null } {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const pieces: Buffer[] = [];
  let got = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = eol < 0 ? NaN : parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!(size >= 0)) return { body: Buffer.concat(pieces), error: `no chunk size line after ${got} body bytes` };
    if (size === 0) return { body: Buffer.concat(pieces), error: null };
    pieces.push(raw.subarray(eol + 2, eol + 2 + size));
    got += size;
    at = eol + 2 + size;
    if (raw[at] !== 13 || raw[at + 1] !== 10) return { body: Buffer.concat(pieces), error: `chunk of ${size} bytes not followed by CRLF after ${got} body bytes` };
    at += 2;
  }
}

t.test('a chunked response to a slow client arrives whole and well framed', async (t) => {
  const be = await chunkingBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/stream.toml`]: apiToml({ name: 'Stream', context: '/stream', production: be.url }) });
  for (let i = 0; i < 16; i++) {
    const raw = await slowGet(s.home.ports.http, '/stream/1.0.0/data');
    t.match(raw.subarray(0, 12).toString('latin1'), /^HTTP\/1\.1 200/, `response ${i}: 200`);
    const { body, error } = decodeChunked(raw);
    t.equal(error, null, `response ${i}: framing intact`);
    t.equal(body.length, TOTAL, `response ${i}: every byte`);
    t.equal(crypto.createHash('sha256').update(body).digest('hex'), expected, `response ${i}: bytes in order`);
  }
});

const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';

t.test('a large answer built by the gateway (content-aware out sequence) reaches a slow client whole', async (t) => {
  const doc = JSON.stringify({ id: 'first', pad: crypto.randomBytes(768 * 1024).toString('base64') });
  const be = await rawBackend(t, (sock) => {
    sock.on('data', () => {
      sock.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${doc.length}\r\n\r\n`);
      sock.write(doc);
    });
  });
  const s = await startSluice(t, {}, {
    [`${SEQ_DIR}/read_id.xml`]: `<?xml version="1.0" encoding="UTF-8"?>
<sequence xmlns="http://ws.apache.org/ns/synapse" name="read_id">
  <property name="doc_id" expression="json-eval($.id)" scope="default"/>
  <header name="X-Doc-Id" expression="get-property('doc_id')" scope="transport"/>
</sequence>`,
    [`${API_DIR}/doc.toml`]: apiToml({ name: 'Doc', context: '/doc', production: be.url, extra: 'out_sequence = "read_id"' }),
  });
  for (let i = 0; i < 4; i++) {
    const raw = await slowGet(s.home.ports.http, '/doc/1.0.0/x');
    const headEnd = raw.indexOf('\r\n\r\n');
    const head = raw.subarray(0, headEnd).toString('latin1');
    t.match(head, /^HTTP\/1\.1 200/, `answer ${i}: 200`);
    t.match(head, /\r\nx-doc-id: first\r\n/i, `answer ${i}: the sequence read the body`);
    t.equal(raw.subarray(headEnd + 4).toString('latin1'), doc, `answer ${i}: the body whole`);
  }
});
