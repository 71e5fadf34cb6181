// The io thread's memory of the turn (transport/turn-arena.ts): pieces front to back, the last one given
// back when it was sent, a region retired when libuv keeps a piece of it, and a region of its own for no
// piece that does not fit.
import t from 'tap';
import { ARENA_BYTES, TurnArena } from '../../transport/turn-arena.js';

t.test('pieces of a turn are cut front to back from one region, and the turn\'s end frees them all', async (t) => {
  const a = new TurnArena();
  const x = a.take(100);
  const y = a.take(50);
  t.ok(a.holds(x) && a.holds(y), 'both from the region');
  t.equal(y.byteOffset, x.byteOffset + 100, 'the second right after the first');
  a.endTurn();
  t.equal(a.take(10).byteOffset, x.byteOffset, 'the next turn starts at the front again');
});

t.test('a copy holds the bytes it was given', async (t) => {
  const a = new TurnArena();
  const src = Buffer.from('lent bytes');
  const c = a.copy(src);
  src.fill(0);
  t.equal(c.toString(), 'lent bytes');
});

t.test('the last piece taken, once sent, serves the next; an earlier one does not', async (t) => {
  const a = new TurnArena();
  const x = a.take(1000);
  a.release(x);
  t.equal(a.take(1000).byteOffset, x.byteOffset, 'reused');
  const first = a.take(10);
  const second = a.take(10);
  a.release(first);
  t.equal(a.take(10).byteOffset, second.byteOffset + 10, 'not the top: nothing given back');
});

t.test('a retired region is never written again', async (t) => {
  const a = new TurnArena();
  const held = a.copy(Buffer.from('held by libuv'));
  a.retire();
  t.notOk(a.holds(held), 'the piece is not the current region\'s any more');
  a.endTurn();
  a.copy(Buffer.alloc(64, 1));
  t.equal(held.toString(), 'held by libuv', 'the next turn wrote elsewhere');
  t.equal(a.retired, 1);
});

t.test('a piece that does not fit gets a buffer of its own', async (t) => {
  const a = new TurnArena();
  a.take(ARENA_BYTES - 10);
  const own = a.take(11);
  t.notOk(a.holds(own));
  t.equal(own.length, 11);
  t.ok(a.holds(a.take(10)), 'what still fits comes from the region');
});
