import t from 'tap';
import crypto from 'node:crypto';
import type WebSocket from 'ws';
import { startWsGateway, wsBackend, nextMessages, closed } from '../helpers/websockets.js';
import { eventually } from '../helpers/home.js';

const MB = 1024 * 1024;

t.test('a slow client pauses the backend; nothing is lost or reordered', async (t) => {
  const chunks = Array.from({ length: 64 }, (_, i) => { const b = crypto.randomBytes(MB); b.writeUInt32BE(i, 0); return b; });
  let backendSide: WebSocket | undefined;
  const be = await wsBackend(t, (ws) => {
    backendSide = ws;
    ws.on('message', () => { for (const c of chunks) ws.send(c); });
  });
  const { open } = await startWsGateway(t, be.url);
  const c = (await open()).ws!;
  c.pause();
  c.send('go');
  await new Promise((r) => setTimeout(r, 1500));
  // 64 MB were sent; what the gateway and the kernel's socket buffers hold is a fraction of it: the rest
  // waits in the backend, which the gateway stopped reading.
  const waiting = backendSide!.bufferedAmount;
  t.ok(waiting > 24 * MB, `the backend is held back (${(waiting / MB).toFixed(1)} MB still unsent there)`);
  const all = nextMessages(c, 64, 30000);
  c.resume();
  const got = await all;
  t.ok(got.every(([d, bin], i) => bin && d.equals(chunks[i]!)), '64 x 1 MB arrived whole, in order');
  await eventually(() => backendSide!.bufferedAmount === 0, 'the backend to drain');
  c.close();
});

t.test('a backend that does not read: the client is closed with 1013 past max_buffered_bytes', async (t) => {
  const be = await wsBackend(t, (ws) => { ws.pause(); });
  const { open } = await startWsGateway(t, be.url, { conf: { sluice: { websocket: { max_message_size: MB, max_buffered_bytes: 65536, close_timeout: '1s' } } } });
  const c = (await open()).ws!;
  const end = closed(c, 20000);
  const block = crypto.randomBytes(256 * 1024);
  for (let i = 0; i < 200 && c.readyState === c.OPEN; i++) {
    c.send(block);
    if (c.bufferedAmount > 8 * MB) await new Promise((r) => setTimeout(r, 20));
  }
  const { code } = await end;
  t.equal(code, 1013, 'client closed with 1013 (try again later)');
  // The gateway dropped its end after close_timeout; the backend notices once it reads again.
  be.last()!.resume();
  await eventually(() => be.open() === 0, 'the stuck backend connection to be dropped', 15000);
  t.pass('no backend socket left');
});

t.test('a message over max_message_size ends the session; the backend is closed', async (t) => {
  const be = await wsBackend(t);
  const { open } = await startWsGateway(t, be.url, { conf: { sluice: { websocket: { max_message_size: 65536 } } } });
  const c = (await open()).ws!;
  c.send(Buffer.alloc(65536, 1));
  const [m] = await nextMessages(c, 1);
  t.equal(m![0].length, 65536, 'a message of exactly max_message_size passes');
  c.on('error', () => {});
  const end = closed(c);
  c.send(Buffer.alloc(65537, 1));
  t.equal((await end).code, 1009, 'one byte more: the client is closed with 1009 (message too big, RFC 6455 §7.4.1)');
  await eventually(() => be.open() === 0, 'the backend connection to close');
});
