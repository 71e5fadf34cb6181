// The kept read's bytes (transport/kept-read-bytes.ts): a read repeats the kept one only when it is as long
// and its head's bytes are the same, byte for byte. Short heads are compared in JavaScript four bytes a step
// over the read buffer's words (read-views.ts), long ones and reads without words with Buffer#compare: each
// way must tell a change in any one byte of the head, including the bytes after the last whole word.
import t from 'tap';
import { KeptReadBytes } from '../../transport/kept-read-bytes.js';
import { ReadViews } from '../../transport/read-views.js';

/** A read of `head` then `body` bytes into a shared read buffer, as the io thread's sockets make them. */
function readInto(buffer: Buffer, views: ReadViews, head: Buffer, body: number): { chunk: Buffer; n: number; words: Int32Array | null } {
  head.copy(buffer, 0);
  buffer.fill(0x62, head.length, head.length + body);
  const n = head.length + body;
  return { chunk: views.of(0, n), n, words: views.words };
}

function headOf(length: number): Buffer {
  const b = Buffer.alloc(length);
  for (let i = 0; i < length; i++) b[i] = 0x41 + ((i * 7) % 26);
  return b;
}

for (const length of [1, 3, 4, 15, 16, 17, 127, 130, 383, 384, 385, 1100]) {
  t.test(`a ${length}-byte head: the same read repeats; one byte changed anywhere in the head does not`, async (t) => {
    const buffer = Buffer.allocUnsafe(16384);
    const views = new ReadViews(buffer);
    t.ok(views.words !== null, 'the read buffer has words (its own memory)');
    const head = headOf(length);
    const kept = new KeptReadBytes();
    const first = readInto(buffer, views, head, 10);
    kept.hold(first.chunk, first.n, length);

    const same = readInto(buffer, views, head, 10);
    t.ok(kept.repeats(same.chunk, same.n, same.words), 'the same head and as many body bytes: repeats');
    t.ok(kept.repeats(same.chunk, same.n, null), 'and without words (Buffer#compare) too');
    const other = readInto(buffer, views, head, 11);
    t.notOk(kept.repeats(other.chunk, other.n, other.words), 'one body byte more: does not repeat');

    let missed = 0;
    let missedNative = 0;
    for (let i = 0; i < length; i++) {
      const changed = Buffer.from(head);
      changed[i] = changed[i]! ^ 0x20;
      const r = readInto(buffer, views, changed, 10);
      if (kept.repeats(r.chunk, r.n, r.words)) missed++;
      if (kept.repeats(r.chunk, r.n, null)) missedNative++;
    }
    t.equal(missed, 0, `each of the ${length} bytes changed alone: never repeats`);
    t.equal(missedNative, 0, 'nor without words');
  });
}

t.test('a read in a buffer that does not begin on a 4-byte boundary has no words and is compared whole', async (t) => {
  const backing = Buffer.allocUnsafeSlow(4097);
  const buffer = backing.subarray(1);
  const views = new ReadViews(buffer);
  t.equal(views.words, null, 'no words for an unaligned buffer');
  const kept = new KeptReadBytes();
  const head = headOf(100);
  const first = readInto(buffer, views, head, 0);
  kept.hold(first.chunk, first.n, 100);
  t.ok(kept.repeats(first.chunk, first.n, views.words), 'the same read repeats');
  const changed = Buffer.from(head);
  changed[99] = 0x7a;
  const r = readInto(buffer, views, changed, 0);
  t.notOk(kept.repeats(r.chunk, r.n, views.words), 'its last byte changed: does not repeat');
});
