// transport/lent-write.ts: a write to a socket's descriptor that keeps nothing, and what is left after it.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { unsentOf, writeNow } from '../../transport/lent-write.js';

t.test('what is left after a partial write: the rest of the piece it stopped in and those after; only the last is copied', async (t) => {
  const a = Buffer.from('abc');
  const b = Buffer.from('defg');
  const lent = Buffer.from('hij');
  const copies: string[] = [];
  const keep = (v: Uint8Array): Buffer => { copies.push(Buffer.from(v).toString()); return Buffer.from(v); };
  const text = (parts: Buffer[]): string[] => parts.map((p) => p.toString());
  t.same(text(unsentOf([a, b, lent], 0, keep)), ['abc', 'defg', 'hij']);
  t.same(text(unsentOf([a, b, lent], 3, keep)), ['defg', 'hij'], 'at a boundary');
  t.same(text(unsentOf([a, b, lent], 5, keep)), ['fg', 'hij'], 'inside a piece');
  t.same(text(unsentOf([a, b, lent], 8, keep)), ['ij'], 'inside the lent piece');
  t.same(unsentOf([a, b, lent], 10, keep), [], 'all sent');
  t.same(copies, ['hij', 'hij', 'hij', 'ij'], 'the lent piece\'s rest is copied, the others are views');
  const v = unsentOf([a, b, lent], 5, keep)[0]!;
  b[2] = 0x46;
  t.equal(v.toString(), 'Fg', 'a gathered piece\'s rest is a view of it');
});

t.test('a write to a socket whose peer is gone is a negative error code, never a throw', async (t) => {
  const server = net.createServer((s) => { s.destroy(); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { server.close(); });
  const c = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  c.on('error', () => {});
  await once(c, 'connect');
  await once(c, 'end');
  const fd = (c as net.Socket & { _handle: { fd: number } })._handle.fd;
  let result = 0;
  for (let i = 0; i < 50 && result >= 0; i++) {
    result = writeNow(fd, [Buffer.alloc(64 * 1024, 1)]);
    await new Promise((r) => setTimeout(r, 5));
  }
  t.ok(result < 0, `EPIPE or ECONNRESET as a libuv code (${result})`);
  c.destroy();
});
