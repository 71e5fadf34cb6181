// The request head and body as the backend reads them off the wire. A body that comes with its head (the
// common small POST) leaves with it in one write; one that comes later follows a head sent alone; chunked
// bodies keep their framing, an empty one included. A raw backend records every read, checks the bytes
// exactly and answers once it has a whole request.
import t from 'tap';
import net from 'node:net';
import { startSluice, type TestSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { rawBackend } from '../helpers/backends.js';

interface Wire { reads: Buffer[]; bytes(): Buffer }

/** A backend that records each read of each request and answers 200 when the request is whole. */
async function wireBackend(t: Tap.Test): Promise<{ url: string; wires: Wire[] }> {
  const wires: Wire[] = [];
  const be = await rawBackend(t, (sock) => {
    let cur: Wire | null = null;
    sock.on('data', (d: Buffer) => {
      if (cur === null) { const reads: Buffer[] = []; cur = { reads, bytes: () => Buffer.concat(reads) }; wires.push(cur); }
      cur.reads.push(Buffer.from(d));
      const text = cur.bytes().toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      const body = text.slice(end + 4);
      const whole = length !== null ? body.length >= Number(length[1]) : /\r\ntransfer-encoding: chunked/i.test(head) ? body.endsWith('0\r\n\r\n') : true;
      if (!whole) return;
      cur = null;
      sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
  });
  return { url: be.url, wires };
}

async function gateway(t: Tap.Test, backend: string): Promise<TestSluice> {
  return startSluice(t, {}, { [`${API_DIR}/wire.toml`]: apiToml({ name: 'wire', context: '/wire', production: backend }) });
}

/** Sends raw request bytes to the gateway, in parts with a pause between them; resolves with the answer. */
function send(port: number, parts: string[], pauseMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1');
    let got = '';
    c.on('data', (d: Buffer) => { got += d.toString('latin1'); if (/\r\n\r\nok$/.test(got)) { c.destroy(); resolve(got); } });
    c.on('error', reject);
    c.on('connect', async () => {
      for (let i = 0; i < parts.length; i++) {
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        c.write(parts[i]!, 'latin1');
      }
    });
    setTimeout(() => { c.destroy(); reject(new Error(`no answer; got ${JSON.stringify(got)}`)); }, 5000);
  });
}

/** The head's lines and the bytes after it. */
function split(wire: Buffer): { lines: string[]; body: string } {
  const text = wire.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  return { lines: text.slice(0, end).split('\r\n'), body: text.slice(end + 4) };
}

t.test('a small POST whose body came with its head reaches the backend in one piece', async (t) => {
  const be = await wireBackend(t);
  const s = await gateway(t, be.url);
  const answer = await send(s.home.ports.http, ['POST /wire/1.0.0/a HTTP/1.1\r\nhost: x\r\ncontent-type: text/plain\r\ncontent-length: 11\r\n\r\nhello world']);
  t.match(answer, /^HTTP\/1\.1 200 /);
  t.equal(be.wires.length, 1);
  const w = be.wires[0]!;
  t.equal(w.reads.length, 1, 'head and body in one read: they left in one write');
  const { lines, body } = split(w.bytes());
  t.equal(lines[0], 'POST /a HTTP/1.1');
  t.ok(lines.includes('content-length: 11'));
  t.equal(body, 'hello world');
});

t.test('a chunked body keeps its framing behind the head, an empty one too', async (t) => {
  const be = await wireBackend(t);
  const s = await gateway(t, be.url);
  await send(s.home.ports.http, ['POST /wire/1.0.0/c HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n']);
  await send(s.home.ports.http, ['POST /wire/1.0.0/e HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n']);
  t.equal(be.wires.length, 2);
  const full = split(be.wires[0]!.bytes());
  t.ok(full.lines.includes('transfer-encoding: chunked'));
  // llhttp may hand the two chunks over as one piece or two: what counts is well-formed framing and the bytes.
  const pieces = /^(?:([0-9a-f]+)\r\n[^]*?\r\n)+0\r\n\r\n$/.test(full.body);
  t.ok(pieces, `well-formed chunked framing: ${JSON.stringify(full.body)}`);
  t.equal(full.body.replace(/(^|\r\n)[0-9a-f]+\r\n/g, '$1').replace(/\r\n/g, ''), 'hello world', 'the body, unframed');
  const empty = split(be.wires[1]!.bytes());
  t.equal(empty.lines[0], 'POST /e HTTP/1.1');
  t.equal(empty.body, '0\r\n\r\n', 'an empty chunked body: the last chunk right behind the head');
});

t.test('a body that comes after its head: the head goes ahead alone, the body follows whole', async (t) => {
  const be = await wireBackend(t);
  const s = await gateway(t, be.url);
  const answer = await send(s.home.ports.http, ['POST /wire/1.0.0/late HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n', '01234', '56789'], 150);
  t.match(answer, /^HTTP\/1\.1 200 /);
  const w = be.wires[0]!;
  t.ok(w.reads.length >= 2, `the head did not wait for the body (${w.reads.length} reads)`);
  t.equal(split(w.reads[0]!).body, '', 'the first read is the head alone');
  t.equal(split(w.bytes()).body, '0123456789');
});

t.test('a chunked body whose chunks come later', async (t) => {
  const be = await wireBackend(t);
  const s = await gateway(t, be.url);
  await send(s.home.ports.http, ['POST /wire/1.0.0/slow HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n', '3\r\nabc\r\n', '0\r\n\r\n'], 150);
  const { body } = split(be.wires[0]!.bytes());
  t.equal(body, '3\r\nabc\r\n0\r\n\r\n');
});
