import t from 'tap';
import { WebSocketServer } from 'ws';
import type net from 'node:net';
import { startSecured, appToml } from '../helpers/secured.js';
import { startWsGateway, wsBackend, wsOpen, nextMessages, closed, wsApiToml } from '../helpers/websockets.js';
import { eventually } from '../helpers/home.js';

t.test('close codes pass through; a dead peer closes the other side; no socket is left', async (t) => {
  const be = await wsBackend(t, (ws) => {
    ws.on('message', (m: Buffer) => {
      const cmd = m.toString();
      if (cmd === 'close 4100') ws.close(4100, 'custom reason');
      else if (cmd === 'close 1001') ws.close(1001, 'backend restarting');
      else if (cmd === 'close nocode') ws.close();
      else if (cmd === 'die') ws.terminate();
      else ws.send(m);
    });
  });
  const { s, token } = await startWsGateway(t, be.url);
  const url = `ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`;
  const session = async () => {
    const o = await wsOpen(url, { token });
    if (!o.ws) throw new Error(`handshake: ${o.status} ${o.error ?? ''}`);
    return o.ws;
  };

  for (const [cmd, code, reason] of [
    ['close 4100', 4100, 'custom reason'],
    ['close 1001', 1001, 'backend restarting'],
    ['close nocode', 1005, ''],
    ['die', 1011, 'Backend connection lost'],
  ] as const) {
    const c = await session();
    const end = closed(c);
    c.send(cmd);
    t.same(await end, { code, reason }, `backend "${cmd}": the client gets ${code}`);
  }
  await eventually(() => be.open() === 0, 'backend sockets to close');

  // The client closes: its code reaches the backend.
  let c = await session();
  let backendEnd = new Promise<number>((r) => be.last()!.once('close', (code: number) => r(code)));
  c.close(1000);
  t.equal(await backendEnd, 1000, 'client 1000 -> backend 1000');

  // The client vanishes without a close frame: the backend is closed with 1001.
  c = await session();
  backendEnd = new Promise<number>((r) => be.last()!.once('close', (code: number) => r(code)));
  c.terminate();
  t.equal(await backendEnd, 1001, 'client gone -> backend 1001');

  // Many sessions, half of them cut abruptly: every backend socket goes.
  const many = await Promise.all(Array.from({ length: 30 }, () => session()));
  t.equal(be.open(), 30, '30 backend connections open');
  await Promise.all(many.map(async (w, i) => { w.send(`x${i}`); await nextMessages(w, 1); }));
  many.forEach((w, i) => (i % 2 ? w.terminate() : w.close(1000)));
  await eventually(() => be.open() === 0, 'all backend connections to close');
  t.pass('backend connections back to zero');
});

t.test('a client that leaves during the handshake leaves no backend socket', async (t) => {
  const sockets = new Set<net.Socket>();
  const slow = new WebSocketServer({
    port: 0, host: '127.0.0.1',
    verifyClient: (_info: unknown, cb: (ok: boolean) => void) => { setTimeout(() => cb(true), 2000); },
  });
  // Every TCP connection the backend accepts, handshake done or not.
  let tcp = 0;
  (slow as unknown as { _server: net.Server })._server.on('connection', (sock: net.Socket) => { tcp++; sockets.add(sock); sock.on('close', () => sockets.delete(sock)); });
  slow.on('connection', (ws) => { ws.on('error', () => {}); });
  await new Promise<void>((r) => slow.once('listening', () => r()));
  t.teardown(() => new Promise<void>((r) => { for (const c of slow.clients) c.terminate(); slow.close(() => r()); }));
  const s = await startSecured(t, {
    apis: { ws: wsApiToml({ name: 'Slow', context: '/slow', production: `ws://127.0.0.1:${(slow.address() as net.AddressInfo).port}` }) },
    apps: { app: appToml({ name: 'WsApp', keys: [{ id: 'ws-app', secret: 's' }], subscriptions: [{ api: 'Slow:1.0.0' }] }) },
  });
  const token = (await s.token('ws-app', 's')).accessToken!;
  const { default: WebSocket } = await import('ws');
  const c = new WebSocket(`ws://127.0.0.1:${s.home.ports.http}/slow/1.0.0`, { headers: { authorization: `Bearer ${token}` } });
  c.on('error', () => {});
  // The gateway has connected to the backend, which is still deciding: the client leaves now.
  await eventually(() => tcp === 1, 'the gateway to connect to the backend');
  c.terminate();
  await new Promise((r) => setTimeout(r, 2500));
  await eventually(() => sockets.size === 0, 'the backend socket of the abandoned handshake to close');
  t.pass('no backend socket left');
});

t.test('a stopping gateway closes sessions with 1001 on both sides', async (t) => {
  const be = await wsBackend(t);
  const { s, open } = await startWsGateway(t, be.url);
  const o = await open();
  const c = o.ws!;
  const backendEnd = new Promise<number>((r) => be.last()!.once('close', (code: number) => r(code)));
  const end = closed(c);
  await s.stop();
  t.equal((await end).code, 1001, 'client: 1001');
  t.equal(await backendEnd, 1001, 'backend: 1001');
  await eventually(() => be.open() === 0, 'backend sockets to close');
});

t.test('a client that never answers the close frame neither holds up nor breaks the stop', async (t) => {
  const be = await wsBackend(t);
  const s = await startSecured(t, {
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: be.url, authType: 'None' }) },
  });
  const o = await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`);
  const c = o.ws!;
  // Reads nothing more: our close frame stays unanswered.
  (c as unknown as { _socket: net.Socket })._socket.pause();
  const t0 = Date.now();
  await s.stop();
  t.ok(Date.now() - t0 < 10_000, `stopped in ${Date.now() - t0} ms`);
  await new Promise((r) => setTimeout(r, 500));
  t.pass('the process is still alive (every socket was closed before the io thread ended)');
  await eventually(() => be.open() === 0, 'the backend connection to close');
  c.terminate();
});
