// The request body a call holds (engine/kernel/body-buffer.ts): pieces within a cap, handed over whole or as
// they came, replaced by mediation.
import t from 'tap';
import { BodyBuffer } from '../../../engine/kernel/body-buffer.js';

t.test('push says when the bytes held pass the cap', async (t) => {
  const b = new BodyBuffer();
  t.ok(b.isEmpty);
  t.ok(b.push(Buffer.from('12345'), 10));
  t.ok(b.push(Buffer.from('67890'), 10), 'exactly at the cap is within it');
  t.notOk(b.push(Buffer.from('x'), 10), 'one byte over');
  t.equal(b.bytes, 11);
});

t.test('whole joins the pieces once; take hands them over and holds nothing after', async (t) => {
  const b = new BodyBuffer();
  b.push(Buffer.from('ab'), 100);
  b.push(Buffer.from('cd'), 100);
  const w = b.whole();
  t.equal(w.toString(), 'abcd');
  t.equal(b.whole(), w, 'the same Buffer the second time: nothing copied again');
  t.same(b.take()!.map(String), ['abcd']);
  t.ok(b.isEmpty);
  t.equal(b.bytes, 0);
  t.equal(b.whole().length, 0, 'empty after take');
});

t.test('replace and clear', async (t) => {
  const b = new BodyBuffer();
  b.push(Buffer.from('old'), 100);
  b.replace(Buffer.from('rewritten'));
  t.equal(b.whole().toString(), 'rewritten');
  t.equal(b.bytes, 9);
  b.clear();
  t.ok(b.isEmpty);
});
