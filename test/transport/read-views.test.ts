// Views of a shared read buffer (transport/read-views.ts): the same bytes as `subarray`, the same view object
// again for the same bounds in a row (two bounds at a time: a backend read's whole and its body), and a view
// sees what the buffer holds now, as any view of a reused buffer does.
import t from 'tap';
import { ReadViews, viewsOf } from '../../transport/read-views.js';

t.test('a view holds the bytes subarray would, and the same bounds give the same view object', async (t) => {
  const buf = Buffer.from('0123456789abcdef');
  const v = new ReadViews(buf);
  t.equal(v.of(0, buf.length), buf, 'the whole buffer is itself');
  const a = v.of(0, 5);
  t.equal(a.toString(), '01234');
  t.equal(v.of(0, 5), a, 'the same bounds again: the same view');
  const b = v.of(3, 9);
  t.equal(b.toString(), '345678');
  t.equal(v.of(0, 5), a, 'two bounds are kept at once');
  t.equal(v.of(3, 9), b);
  const c = v.of(1, 2);
  t.equal(c.toString(), '1');
  t.not(v.of(0, 5), a, 'a third pair of bounds replaced the oldest');
  t.equal(v.of(0, 5).toString(), '01234', 'and a new view of those bounds has the same bytes');
  t.equal(v.of(1, 2), c);
});

t.test('a view shows what the buffer holds now (the next read\'s bytes), never a copy of an earlier read', async (t) => {
  const buf = Buffer.alloc(8, 0x61);
  const v = new ReadViews(buf);
  const first = v.of(0, 4);
  t.equal(first.toString(), 'aaaa');
  buf.write('bbbb', 0, 'latin1');
  t.equal(v.of(0, 4).toString(), 'bbbb');
  t.equal(first.toString(), 'bbbb', 'a view kept past its read sees the next read: whoever keeps bytes copies them');
  t.equal(v.of(0, 4).length, 4);
  t.equal(v.of(2, 2).length, 0, 'an empty range is an empty view');
});

t.test('one set of views per buffer, for every connection that reads into it', async (t) => {
  const a = Buffer.alloc(4);
  const b = Buffer.alloc(4);
  t.equal(viewsOf(a), viewsOf(a));
  t.not(viewsOf(a), viewsOf(b));
  t.equal(viewsOf(b).buffer, b);
});
