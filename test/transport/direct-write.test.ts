// A connection's writer (transport/direct-write.ts) gathers what one turn of the event loop gives it and writes
// it at the turn's end, straight to a plain socket's handle, and keeps every promise of the stream it
// bypasses: bytes leave in the order they were given, whichever path took them; what libuv could not send at
// once is back-pressure until it drains; a flush and then end() sends everything first; a failed write is an
// 'error' on the socket. Real sockets on loopback, a reader counting and checking what arrives.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { DirectWriter, StreamOut, TURN_FLUSH_BYTES, socketOut, type SocketOut } from '../../transport/direct-write.js';

/** A server whose one connection is handed to `use`; the client reads all it is sent and resolves with it. */
async function pair(t: Tap.Test, use: (s: net.Socket) => void, opts: { pauseClient?: boolean } = {}): Promise<{ received: Promise<Buffer>; client: net.Socket }> {
  const server = net.createServer(use);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { server.close(); });
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  t.teardown(() => { client.destroy(); });
  const parts: Buffer[] = [];
  if (opts.pauseClient) client.pause();
  client.on('data', (d: Buffer) => { parts.push(d); });
  const received = new Promise<Buffer>((resolve, reject) => {
    client.on('end', () => { resolve(Buffer.concat(parts)); });
    client.on('error', reject);
  });
  return { received, client };
}

/** Bytes that say where they belong: byte i of part p is p + 1, so an overtaken part shows. */
const part = (p: number, n: number): Buffer => Buffer.alloc(n, p + 1);

/** The parts `got` holds, in order, as [value, length] runs. */
function runs(got: Buffer): [number, number][] {
  const out: [number, number][] = [];
  for (const b of got) {
    const last = out[out.length - 1];
    if (last !== undefined && last[0] === b) last[1]++;
    else out.push([b, 1]);
  }
  return out;
}

/** Bytes the socket's handle has taken (libuv's count: a gathered byte is not in it yet). */
const handed = (s: net.Socket): number => (s as net.Socket & { _handle: { bytesWritten: number } })._handle.bytesWritten;

const endOfTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

for (const [name, make] of [['direct', (s: net.Socket) => new DirectWriter(s, () => {})], ['stream', (s: net.Socket) => new StreamOut(s)]] as const) {
  t.test(`${name}: what one turn writes reaches the socket at the turn's end, in order, and not before`, async (t) => {
    let during = -1;
    let after = -1;
    let returned: boolean[] = [];
    const { received } = await pair(t, (s) => {
      const w: SocketOut = make(s);
      returned = [w.writeLatin1('HTTP/1.1 200 OK\r\n'), w.write(Buffer.from('content-length: 4\r\n\r\n')), w.writev(['bo', Buffer.from('dy')])];
      during = handed(s);
      void endOfTurn().then(() => { after = handed(s); s.end(); });
    });
    t.equal((await received).toString('latin1'), 'HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nbody');
    t.same(returned, [true, true, true], 'small writes are no back-pressure');
    t.equal(during, 0, 'nothing reached the socket during the turn');
    t.equal(after, 42, 'all of it at its end');
  });

  t.test(`${name}: flush() gives the turn's bytes to the socket now, and end() after it sends them before the FIN`, async (t) => {
    let flushed = -1;
    const { received } = await pair(t, (s) => {
      const w = make(s);
      w.writeLatin1('HTTP/1.1 400 Bad Request\r\n');
      w.write(Buffer.from('connection: close\r\ncontent-length: 0\r\n\r\n'));
      w.flush();
      flushed = handed(s);
      w.flush(); // nothing left: nothing written twice
      s.end();
    });
    t.equal((await received).toString('latin1'), 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    t.equal(flushed, 66);
  });

  t.test(`${name}: a turn's bytes over ${TURN_FLUSH_BYTES} leave at once, the smaller ones before them with them`, async (t) => {
    const sizes = [100, TURN_FLUSH_BYTES, 10];
    let atOnce = -1;
    let afterSmall = -1;
    const { received } = await pair(t, (s) => {
      const w = make(s);
      w.write(part(0, sizes[0]!));
      w.write(part(1, sizes[1]!));
      atOnce = handed(s);
      w.write(part(2, sizes[2]!));
      afterSmall = handed(s);
      w.flush();
      s.end();
    });
    t.same(runs(await received), sizes.map((n, i) => [i + 1, n]));
    t.equal(atOnce, sizes[0]! + sizes[1]!, 'the large piece and what was gathered before it went at once');
    t.equal(afterSmall, atOnce, 'the small one after it waits for the turn');
  });

  t.test(`${name}: bytes given after end() never follow the FIN: the stream refuses them, and the peer gets what came before`, async (t) => {
    let error: NodeJS.ErrnoException | null = null;
    const { received } = await pair(t, (s) => {
      s.on('error', (e: NodeJS.ErrnoException) => { error = e; });
      const w = make(s);
      w.write(Buffer.from('before'));
      w.flush();
      s.end();
      w.write(Buffer.from('after')); // leaves at the turn's end, if at all
    });
    t.equal((await received).toString('latin1'), 'before');
    await new Promise((r) => setTimeout(r, 20));
    t.equal((error as NodeJS.ErrnoException | null)?.code, 'ERR_STREAM_WRITE_AFTER_END', 'refused by the stream, not written to the shut-down handle');
  });

  t.test(`${name}: bytes gathered for a socket destroyed before the turn ends go nowhere, without an error`, async (t) => {
    const server = net.createServer((s) => { s.resume(); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => { server.close(); });
    const c = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await once(c, 'connect');
    let errors = 0;
    c.on('error', () => { errors++; });
    const w = make(c);
    w.write(Buffer.from('never sent'));
    c.destroy();
    await endOfTurn();
    await new Promise((r) => setTimeout(r, 20));
    t.equal(errors, 0);
    t.equal(c.bytesWritten, 0);
  });
}

t.test('a connection whose write throws at the turn\'s end fails alone: the others\' bytes still leave', async (t) => {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => { sockets.push(s); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { server.close(); });
  const port = (server.address() as net.AddressInfo).port;
  const a = net.connect(port, '127.0.0.1');
  const b = net.connect(port, '127.0.0.1');
  t.teardown(() => { a.destroy(); b.destroy(); });
  await Promise.all([once(a, 'connect'), once(b, 'connect')]);
  while (sockets.length < 2) await new Promise((r) => setTimeout(r, 5));
  const [sa, sb] = sockets as [net.Socket, net.Socket];
  // A fault below the writer (Node's binding throwing) on the first connection only.
  (sa as net.Socket & { _handle: { writeBuffer: unknown } })._handle.writeBuffer = () => { throw new Error('binding fault'); };
  const failed = once(sa, 'error');
  new DirectWriter(sa, () => {}).write(Buffer.from('lost'));
  new DirectWriter(sb, () => {}).write(Buffer.from('delivered'));
  const got = once(b, 'data');
  const [err] = await failed as [Error];
  t.equal(err.message, 'binding fault', 'the failing connection is destroyed with the fault');
  t.equal(String((await got)[0]), 'delivered', 'the other connection\'s bytes left at the same turn\'s end');
});

t.test('a write libuv cannot finish at once is back-pressure until it drains, then onDrained runs once', async (t) => {
  const big = part(0, 64 * 1024 * 1024);
  let drained = 0;
  let ok: boolean | null = null;
  let pendingAfter = -1;
  let needsDrainAfter = false;
  let w: DirectWriter | null = null;
  const { received, client } = await pair(t, (s) => {
    w = new DirectWriter(s, () => { drained++; t.equal(w!.pending, 0, 'nothing pending when drained'); t.notOk(w!.needsDrain); s.end(); });
    ok = w.write(big);
    pendingAfter = w.pending;
    needsDrainAfter = w.needsDrain;
  }, { pauseClient: true });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(ok, false, 'write returned false: the client is not reading');
  t.equal(pendingAfter, 1);
  t.ok(needsDrainAfter);
  t.equal(drained, 0, 'not drained while the client reads nothing');
  client.resume();
  const got = await received;
  t.equal(got.length, big.length, 'all of it arrived');
  t.equal(drained, 1);
});

t.test('bytes the stream holds are back-pressure for the direct writer too, until the stream drains', async (t) => {
  const big = part(0, 64 * 1024 * 1024);
  let during: boolean | null = null;
  let afterDrain: boolean | null = null;
  const { received, client } = await pair(t, (s) => {
    const w = new DirectWriter(s, () => {});
    s.write(big); // through the stream, past the writer: the client reads nothing yet
    during = w.needsDrain;
    s.once('drain', () => { afterDrain = w.needsDrain; s.end(); });
  }, { pauseClient: true });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(during, true, 'the stream is full: so is the writer');
  client.resume();
  t.equal((await received).length, big.length);
  t.equal(afterDrain, false, 'drained: no longer back-pressure');
});

t.test('direct and stream writes leave in the order they were made, a pending direct write included', async (t) => {
  const sizes = [8 * 1024 * 1024, 1000, 3 * 1024 * 1024, 10, 500];
  const { received, client } = await pair(t, (s) => {
    const w = new DirectWriter(s, () => {});
    w.write(part(0, sizes[0]!)); // pending in libuv: the client is paused
    s.write(part(1, sizes[1]!)); // the stream, behind it
    w.write(part(2, sizes[2]!)); // large: through the stream at once, behind the stream's write, which it still holds
    s.write(part(3, sizes[3]!));
    w.write(part(4, sizes[4]!)); // gathered
    w.flush();
    s.end();
  }, { pauseClient: true });
  await new Promise((r) => setTimeout(r, 100));
  client.resume();
  t.same(runs(await received), sizes.map((n, i) => [i + 1, n]));
});

t.test('writev: strings (byte per character) and Buffers leave in one go, in order; a held one keeps its Buffers', async (t) => {
  const big = part(4, 8 * 1024 * 1024);
  let first: boolean | null = null;
  const { received, client } = await pair(t, (s) => {
    const w = new DirectWriter(s, () => {});
    first = w.writev(['POST /x HTTP/1.1\r\n\u00e9\r\n', Buffer.from('body'), '\r\n']);
    w.writev([big, 'tail']);
    w.flush();
    s.end();
  }, { pauseClient: true });
  await new Promise((r) => setTimeout(r, 100));
  client.resume();
  const got = await received;
  t.equal(first, true, 'a small writev is no back-pressure');
  const head = Buffer.from('POST /x HTTP/1.1\r\n\u00e9\r\nbody\r\n', 'latin1');
  t.same(got.subarray(0, head.length), head, 'U+00E9 went out as the one byte 0xE9');
  t.same(runs(got.subarray(head.length, head.length + big.length)), [[5, big.length]]);
  t.equal(got.subarray(head.length + big.length).toString('latin1'), 'tail');
});

t.test('a corked socket is never overtaken: what a flush finds corked joins the corked bytes', async (t) => {
  const { received } = await pair(t, (s) => {
    const w = new DirectWriter(s, () => {});
    s.cork();
    s.write(part(0, 100));
    w.write(part(1, 50));
    w.flush();
    t.equal(s.writableLength, 150, 'the cork holds both (they leave in one writev)');
    s.uncork();
    w.write(part(2, 25));
    w.flush();
    s.end();
  });
  t.same(runs(await received), [[1, 100], [2, 50], [3, 25]]);
});

t.test('end() right after a direct write libuv still holds sends all of it before the FIN', async (t) => {
  const n = 16 * 1024 * 1024;
  const { received, client } = await pair(t, (s) => {
    const w = new DirectWriter(s, () => {});
    t.equal(w.write(part(6, n)), false);
    w.flush();
    s.end();
  }, { pauseClient: true });
  await new Promise((r) => setTimeout(r, 100));
  client.resume();
  t.same(runs(await received), [[7, n]]);
});

t.test('writing to a connection the peer reset is an error on the socket, never a throw or a hang', async (t) => {
  // Not reading: the reset is found by the write, not by a read first.
  const server = net.createServer({ pauseOnConnect: true });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { server.close(); });
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const [s] = await once(server, 'connection') as [net.Socket];
  await once(client, 'connect');
  client.resetAndDestroy();
  await new Promise((r) => setTimeout(r, 50));
  const w = new DirectWriter(s, () => {});
  const failed = once(s, 'error');
  // The first write may still be taken by the kernel; the reset shows on a following one at the latest.
  for (let i = 0; i < 5 && !s.destroyed; i++) { w.write(Buffer.alloc(1024, 1)); await endOfTurn(); }
  const [err] = await failed as [NodeJS.ErrnoException];
  t.match(err.code, /^(EPIPE|ECONNRESET)$/, `error ${err.code}`);
  t.ok(s.destroyed, 'the socket is destroyed');
});

t.test('TLS sockets (and any socket not marked plain) write through the stream', async (t) => {
  const s = new net.Socket();
  t.type(socketOut(s, false, () => {}), StreamOut);
  t.type(socketOut(s, true, () => {}), DirectWriter, 'this Node.js offers the stream binding');
  s.destroy();
});

t.test("a direct write leaves the socket's timeout alone (the sockets it writes are timed elsewhere)", async (t) => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const [s] = await once(server, 'connection') as [net.Socket];
  client.resume();
  const w = new DirectWriter(s, () => {});
  const start = Date.now();
  s.setTimeout(300);
  const timedOut = once(s, 'timeout').then(() => Date.now() - start);
  await new Promise((r) => setTimeout(r, 200));
  w.write(Buffer.from('x')); // the write leaves at the end of this turn
  const after = await timedOut;
  t.ok(after < 450, `the timeout ran from its start (fired at ${after} ms)`);
  s.destroy();
  client.destroy();
  server.close();
});

/** Counts the direct writes a socket's handle is asked for, by kind. */
function countWrites(s: net.Socket): { writeBuffer: number; writev: number; writeLatin1String: number } {
  const h = (s as net.Socket & { _handle: Record<string, (...a: unknown[]) => number> })._handle;
  const n = { writeBuffer: 0, writev: 0, writeLatin1String: 0 };
  for (const k of ['writeBuffer', 'writev', 'writeLatin1String'] as const) {
    const real = h[k]!.bind(h);
    h[k] = (...a: unknown[]) => { n[k]++; return real(...a); };
  }
  return n;
}

t.test('text, then bytes of the turn after it (a head, then its body), leave as one buffer, the text byte per character', async (t) => {
  const head = 'POST /x HTTP/1.1\r\nx-odd: \u0100\u00ff\r\ncontent-length: 5\r\n\r\n';
  let writes = { writeBuffer: 0, writev: 0, writeLatin1String: 0 };
  const { received } = await pair(t, (s) => {
    writes = countWrites(s);
    const w = new DirectWriter(s, () => {});
    w.writeLatin1(head);
    w.writeLent(Buffer.from('hello'));
    void endOfTurn().then(() => { s.end(); });
  });
  t.same(await received, Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from('hello')]), 'the bytes writeLatin1String would have sent, then the body');
  t.same(writes, { writeBuffer: 1, writev: 0, writeLatin1String: 0 }, 'one write of one buffer');
});

t.test('text and bytes that do not lie end to end (a body of its own) leave in one writev, in order', async (t) => {
  const head = 'POST /big HTTP/1.1\r\n\r\n';
  const body = Buffer.alloc(300 * 1024, 7);
  let writes = { writeBuffer: 0, writev: 0, writeLatin1String: 0 };
  const { received } = await pair(t, (s) => {
    writes = countWrites(s);
    const w = new DirectWriter(s, () => {});
    w.writeLatin1(head);
    w.write(body);
    w.flush();
    w.writeLatin1('tail');
    void endOfTurn().then(() => { s.end(); });
  });
  t.same(await received, Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('tail')]));
  t.same(writes, { writeBuffer: 0, writev: 1, writeLatin1String: 1 }, 'the head and the body together, then the text alone');
});

t.test('large lent pieces leave from the lent memory or are copied: a reader that stalls gets every byte in order, though the memory is reused at once', async (t) => {
  // One 64 KiB buffer lent again and again, refilled right after each writeLent returns (as a socket's read
  // buffer is): the client reads nothing for 300 ms, so the kernel soon takes a piece only in part, then
  // none, and what it did not take must have been copied before the buffer changed.
  const lent = Buffer.alloc(64 * 1024);
  const pieces = 96;
  const expected = Buffer.alloc(pieces * lent.length);
  for (let i = 0; i < pieces; i++) expected.fill((i * 7 + 1) & 255, i * lent.length, (i + 1) * lent.length);
  expected.writeUInt32BE(0xdeadbeef, 1);
  let drained = 0;
  const { received, client } = await pair(t, (s) => {
    const w = new DirectWriter(s, () => { drained++; });
    w.writeLatin1('head');
    let i = 0;
    const more = (): void => {
      while (i < pieces) {
        lent.fill((i * 7 + 1) & 255);
        if (i === 0) lent.writeUInt32BE(0xdeadbeef, 1);
        const ok = w.writeLent(lent);
        lent.fill(0xee); // the lent memory is read into again
        i++;
        if (!ok) { setTimeout(more, 5); return; }
      }
      w.flush();
      const done = (): void => { if (w.needsDrain) setTimeout(done, 5); else s.end(); };
      done();
    };
    more();
  }, { pauseClient: true });
  setTimeout(() => client.resume(), 300);
  const got = await received;
  t.equal(got.length, 4 + expected.length);
  t.equal(got.subarray(0, 4).toString('latin1'), 'head', 'the gathered text first');
  let at = 0;
  while (at < expected.length && got[4 + at] === expected[at]) at++;
  t.equal(at, expected.length, 'every piece as it was lent, in order (the first difference, if any, at this offset)');
  t.ok(drained > 0, 'the copies that waited were back-pressure until they drained');
});
