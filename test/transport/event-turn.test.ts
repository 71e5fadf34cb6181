// The turn's clock (transport/event-turn.ts): read once per turn of the event loop, never carried across a
// wait for I/O or a timer, and the end of the turn also flushes the writers' gathered bytes. Real sockets
// and real timers; the clock is compared with Date.now() itself.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { turnNow, endTurnSoon } from '../../transport/event-turn.js';
import { socketOut } from '../../transport/direct-write.js';

/** Spins for `ms` milliseconds of wall-clock time (the clock must not move inside one turn). */
function spin(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* a turn that takes its time */ }
}

t.test('within one turn every reading is the turn\'s first: Date.now() moves, the turn\'s clock does not', async (t) => {
  await new Promise((r) => setImmediate(r));
  const first = turnNow();
  t.ok(Math.abs(first - Date.now()) <= 1, 'the first reading is the time now');
  spin(15);
  t.equal(turnNow(), first, 'the same reading 15 ms later in the same turn');
  t.ok(Date.now() - first >= 15, 'while the real clock moved');
});

t.test('the next turn reads the clock again', async (t) => {
  const first = turnNow();
  spin(10);
  await new Promise((r) => setImmediate(r));
  const next = turnNow();
  t.ok(next - first >= 10, `a fresh reading after the turn ended (${next - first} ms later)`);
});

t.test('a timer\'s callback and a socket\'s callback read a fresh clock, however long the thread waited', async (t) => {
  const before = turnNow();
  const inTimer = await new Promise<number>((r) => setTimeout(() => r(turnNow()), 40));
  t.ok(inTimer - before >= 35, `in a timer 40 ms later: ${inTimer - before} ms`);

  // A server that answers after 30 ms: the client's 'data' callback runs in a turn after a wait for I/O.
  const server = net.createServer((s) => { s.once('data', () => setTimeout(() => s.end('pong'), 30)); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => { server.close(); });
  const c = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await once(c, 'connect');
  const sent = turnNow();
  c.write('ping');
  const [chunk] = await once(c, 'data') as [Buffer];
  const inRead = turnNow();
  t.equal(String(chunk), 'pong');
  t.ok(inRead - sent >= 25, `in the read callback: ${inRead - sent} ms after the write`);
  c.destroy();
});

t.test('the end of the turn flushes the writers too, when the clock asked for it first', async (t) => {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => { server.close(); });
  const c = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const [s] = await once(server, 'connection') as [net.Socket];
  await once(c, 'connect');
  await new Promise((r) => setImmediate(r));
  turnNow(); // the clock schedules the turn's end first
  endTurnSoon(); // asking again schedules nothing more
  const out = socketOut(s, true, () => {});
  out.writeLatin1('gathered');
  const [chunk] = await once(c, 'data') as [Buffer];
  t.equal(String(chunk), 'gathered', 'the writer\'s bytes left at the turn\'s end');
  c.destroy();
  s.destroy();
});
