import t from 'tap';
import crypto from 'node:crypto';
import { startSecured, appToml } from '../helpers/secured.js';
import { wsBackend, wsOpen, nextMessages, closed, wsApiToml } from '../helpers/websockets.js';
import { eventually } from '../helpers/home.js';

t.test('messages are relayed both ways, whole and unchanged', async (t) => {
  const be = await wsBackend(t);
  const s = await startSecured(t, {
    apis: { echo: wsApiToml({ name: 'Echo', context: '/echo', production: `${be.url}/base` }) },
    apps: { app: appToml({ name: 'WsApp', keys: [{ id: 'ws-app', secret: 's' }], subscriptions: [{ api: 'Echo:1.0.0' }] }) },
  });
  const token = (await s.token('ws-app', 's')).accessToken!;
  const url = `ws://127.0.0.1:${s.home.ports.http}/echo/1.0.0/room/7?x=1`;

  const o = await wsOpen(url, { token, headers: { 'x-client': 'yes' } });
  t.ok(o.ws, `handshake accepted (${o.status ?? ''} ${o.body ?? o.error ?? ''})`);
  const c = o.ws!;
  t.equal(be.handshakes.length, 1, 'one backend handshake');
  const hs = be.handshakes[0]!;
  t.equal(hs.url, '/base/room/7?x=1', 'backend path = endpoint path + resource path, query kept');
  t.equal(hs.headers['x-client'], 'yes', 'end-to-end headers forwarded');
  t.equal(hs.headers['authorization'], undefined, 'the client token does not reach the backend');
  t.equal(hs.headers['x-forwarded-for'], '127.0.0.1', 'X-Forwarded-For');

  c.send('hello');
  let [m] = await nextMessages(c, 1);
  t.same([m![0].toString(), m![1]], ['hello', false], 'text echoed as text');

  const bin = crypto.randomBytes(70000);
  c.send(bin);
  [m] = await nextMessages(c, 1);
  t.ok(m![1] && m![0].equals(bin), 'binary echoed as binary, byte for byte');

  // A fragmented message reaches the backend as one message.
  c.send('frag-', { fin: false });
  c.send('ment', { fin: true });
  [m] = await nextMessages(c, 1);
  t.equal(m![0].toString(), 'frag-ment', 'fragments joined into one message');
  t.equal(be.received.at(-1)![0].toString(), 'frag-ment', 'the backend got one whole message');

  // 16 MB (the default max_message_size) both ways.
  const big = crypto.randomBytes(16 * 1024 * 1024);
  c.send(big);
  [m] = await nextMessages(c, 1, 30000);
  t.ok(m![0].equals(big), '16 MB message relayed both ways intact');

  // Many small messages keep their order.
  const n = 2000;
  const got = nextMessages(c, n);
  for (let i = 0; i < n; i++) c.send(`m${i}`);
  const all = await got;
  t.ok(all.every(([d], i) => d.toString() === `m${i}`), `${n} messages in order`);

  // Pings: answered by the gateway, and passed on to the backend.
  const backendPing = new Promise<string>((r) => be.last()!.once('ping', (d: Buffer) => r(d.toString())));
  const pong = new Promise<string>((r) => c.once('pong', (d: Buffer) => r(d.toString())));
  c.ping('are-you-there');
  t.equal(await pong, 'are-you-there', 'client ping answered');
  t.equal(await backendPing, 'are-you-there', 'client ping passed to the backend');
  const clientPing = new Promise<string>((r) => c.once('ping', (d: Buffer) => r(d.toString())));
  be.last()!.ping('backend-here');
  t.equal(await clientPing, 'backend-here', 'backend ping passed to the client');

  // The client's close code and reason reach the backend.
  const backendClose = new Promise<[number, string]>((r) => be.last()!.once('close', (code: number, reason: Buffer) => r([code, reason.toString()])));
  c.close(4000, 'bye now');
  t.same(await backendClose, [4000, 'bye now'], 'close code and reason passed to the backend');
  await eventually(() => be.open() === 0, 'the backend connection to close');
});

t.test('sub-protocols: the backend chooses; a token may come as access_token', async (t) => {
  const be = await wsBackend(t, undefined, { handleProtocols: (p) => (p.has('chat.v2') ? 'chat.v2' : false) });
  const s = await startSecured(t, {
    apis: { echo: wsApiToml({ name: 'Echo', context: '/echo', production: be.url }) },
    apps: { app: appToml({ name: 'WsApp', keys: [{ id: 'ws-app', secret: 's' }], subscriptions: [{ api: 'Echo:1.0.0' }] }) },
  });
  const token = (await s.token('ws-app', 's')).accessToken!;
  const base = `ws://127.0.0.1:${s.home.ports.http}/echo/1.0.0`;

  const o = await wsOpen(base, { token, protocols: ['chat.v1', 'chat.v2'] });
  t.equal(o.ws?.protocol, 'chat.v2', 'the client gets the sub-protocol the backend chose');
  t.same(String(be.handshakes[0]!.headers['sec-websocket-protocol']).split(/\s*,\s*/), ['chat.v1', 'chat.v2'], 'the backend saw what the client offered');
  o.ws!.close();

  const q = await wsOpen(`${base}/feed?room=a&access_token=${encodeURIComponent(token)}`);
  t.ok(q.ws, `token in the access_token query parameter accepted (${q.status ?? ''})`);
  t.equal(be.handshakes.at(-1)!.url, '/feed?room=a', 'the token is not in the backend URL');
  t.equal(be.handshakes.at(-1)!.headers['authorization'], undefined, 'nor in its headers');
  q.ws!.send('ok?');
  const [m] = await nextMessages(q.ws!, 1);
  t.equal(m![0].toString(), 'ok?', 'relayed');
  q.ws!.close();
  const logs = JSON.stringify(s.home.logs());
  t.notOk(logs.includes(token), 'the token is never logged');

  const bad = await wsOpen(`${base}?access_token=garbage`);
  t.equal(bad.status, 401, 'a bad query token is refused');
  t.match(bad.body, /900901/);

  // A plain HTTP request to a WS API: 426.
  const r = await s.call('/echo/1.0.0', token);
  t.equal(r.status, 426, 'plain HTTP to a WS API: 426 Upgrade Required');
  t.equal(r.headers['upgrade'], 'websocket');
  await closed(o.ws!).catch(() => {});
});
