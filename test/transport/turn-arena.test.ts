// The io thread's memory of the turn (transport/turn-arena.ts): pieces cut front to back, the last one given
// back when it was sent, regions set aside while libuv holds pieces of them and reused once it lets go, and
// a buffer of its own for a piece over half a region. Then the writer's side (direct-write.ts) on real
// sockets: what libuv holds is held until it is done, also when the socket is destroyed first.
import t from 'tap';
import net from 'node:net';
import { ARENA_BYTES, FREE_REGIONS, TurnArena, turnArena } from '../../transport/turn-arena.js';
import { socketOut } from '../../transport/direct-write.js';

t.test('pieces of a turn are cut front to back from one region, and the turn\'s end frees them all', async (t) => {
  const a = new TurnArena();
  const x = a.take(100);
  const y = a.take(50);
  t.ok(a.regionOf(x) !== null && a.regionOf(x) === a.regionOf(y), 'both from the one region');
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

t.test('the last piece cut, once sent, serves the next; an earlier one does not', async (t) => {
  const a = new TurnArena();
  const x = a.take(1000);
  a.release(x);
  t.equal(a.take(1000).byteOffset, x.byteOffset, 'reused');
  const first = a.take(10);
  const second = a.take(10);
  a.release(first);
  t.equal(a.take(10).byteOffset, second.byteOffset + 10, 'not the last: nothing given back');
});

t.test('bytes libuv holds are never cut again until it lets go', async (t) => {
  const a = new TurnArena();
  const held = a.copy(Buffer.from('held by libuv'));
  const r = a.regionOf(held)!;
  a.hold(r);
  a.endTurn();
  const next = a.copy(Buffer.alloc(64, 1));
  t.equal(held.toString(), 'held by libuv', 'the next turn cut past it');
  t.ok(next.byteOffset >= held.byteOffset + held.length);
  a.unhold(r);
  a.endTurn();
  t.equal(a.take(1).byteOffset, 0, 'let go: the region is cut from the front again');
  t.equal(a.holding, 0);
});

t.test('a full region is set aside, and reused once its pieces are sent and libuv lets go', async (t) => {
  const a = new TurnArena();
  const first = a.take(ARENA_BYTES - 10);
  const r1 = a.regionOf(first)!;
  a.hold(r1);
  const second = a.take(100);
  t.not(a.regionOf(second), r1, 'no room: another region');
  t.equal(a.regionOf(first), r1, 'the full one is still known while it may be in use');
  a.endTurn();
  t.equal(a.allocated, 2);
  a.unhold(r1);
  a.endTurn();
  // The second region is current; filling it brings back the first, not a new one.
  a.take(ARENA_BYTES - 100);
  const third = a.take(200);
  t.equal(third.buffer, first.buffer, 'the first region again');
  t.equal(a.allocated, 2, 'nothing allocated');
});

t.test('at most FREE_REGIONS regions wait for reuse', async (t) => {
  const a = new TurnArena();
  const held = [];
  for (let i = 0; i < FREE_REGIONS + 3; i++) {
    const b = a.take(ARENA_BYTES / 2);
    const r = a.regionOf(b)!;
    a.hold(r);
    held.push(r);
    a.take(ARENA_BYTES / 2); // fills it: the next take needs another region
  }
  for (const r of held) a.unhold(r);
  a.endTurn();
  const before = a.allocated;
  a.take(ARENA_BYTES); // fills the current one
  for (let i = 0; i < FREE_REGIONS; i++) { a.take(ARENA_BYTES / 2); a.take(ARENA_BYTES / 2); } // a region each
  t.equal(a.allocated, before, `${FREE_REGIONS} regions came from the free ones`);
  a.take(ARENA_BYTES / 2);
  t.equal(a.allocated, before + 1, 'the next one is new');
});

t.test('a piece over half a region that does not fit gets a buffer of its own; a smaller one a new region', async (t) => {
  const a = new TurnArena();
  t.not(a.regionOf(a.take(ARENA_BYTES / 2 + 1)), null, 'it fits: cut from the region');
  const own = a.take(ARENA_BYTES / 2 + 1);
  t.equal(a.regionOf(own), null, 'no room: its own');
  t.equal(own.length, ARENA_BYTES / 2 + 1);
  t.equal(a.allocated, 1);
  t.not(a.regionOf(a.take(ARENA_BYTES / 2)), null, 'half a region: a new one');
  t.equal(a.allocated, 2);
});

t.test('a writer holds the regions of what libuv could not send, and lets go when done or destroyed', async (t) => {
  for (const end of ['read', 'destroy'] as const) {
    let sock!: net.Socket;
    const server = net.createServer((s) => { sock = s; });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    client.pause();
    await new Promise((r) => setTimeout(r, 50));
    const out = socketOut(sock, true, () => {});
    // Pieces of 64 KiB, one a turn, until the kernel takes no more and libuv holds the rest.
    let turns = 0;
    while (turnArena.holding === 0 && turns++ < 400) {
      const piece = out.scratch(64 * 1024);
      piece.fill(turns & 255);
      out.write(piece);
      await new Promise((r) => setImmediate(r));
    }
    t.ok(turnArena.holding > 0, `${end}: libuv holds a write after ${turns} turns`);
    if (end === 'read') client.resume(); else sock.destroy();
    await new Promise((r) => setTimeout(r, 300));
    t.equal(turnArena.holding, 0, `${end}: nothing held once libuv is done`);
    client.destroy();
    sock.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
