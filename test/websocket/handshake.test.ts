import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { startSecured, appToml } from '../helpers/secured.js';
import { startWsGateway, wsBackend, wsOpen, nextMessages, closed, wsApiToml } from '../helpers/websockets.js';
import { freePort } from '../helpers/home.js';

const fault = (body: string | undefined): { code?: number; message?: string; description?: string } | undefined => {
  try { return (JSON.parse(body ?? '') as { fault?: { code?: number } }).fault; } catch { return undefined; }
};

t.test('the handshake is checked like an HTTP call: token, subscription, scopes, key type', async (t) => {
  const prod = await wsBackend(t);
  const sandbox = await wsBackend(t, (ws) => ws.on('message', () => ws.send('from sandbox')));
  const s = await startSecured(t, {
    apis: {
      ws: wsApiToml({ name: 'Ws', context: '/ws', production: prod.url, sandbox: sandbox.url }),
      scoped: wsApiToml({ name: 'Scoped', context: '/scoped', production: prod.url, scopes: ['chat:write'] }),
      prodonly: wsApiToml({ name: 'ProdOnly', context: '/prodonly', production: prod.url }),
      open: wsApiToml({ name: 'Open', context: '/open', production: prod.url, authType: 'None' }),
      blocked: wsApiToml({ name: 'Blocked', context: '/blocked', production: prod.url }).replace('lifecycle_state = "PUBLISHED"', 'lifecycle_state = "BLOCKED"'),
    },
    apps: {
      app: appToml({ name: 'WsApp', keys: [
        { id: 'ws-prod', secret: 'p', scopes: ['chat:write'] },
        { id: 'ws-sand', secret: 's', keyType: 'SANDBOX' },
      ], subscriptions: [{ api: 'Ws:1.0.0' }, { api: 'Scoped:1.0.0' }, { api: 'ProdOnly:1.0.0' }, { api: 'Blocked:1.0.0' }] }),
      held: appToml({ name: 'Held', keys: [{ id: 'held', secret: 'h' }], subscriptions: [{ api: 'Ws:1.0.0', state: 'ON_HOLD' }] }),
      lonely: appToml({ name: 'Lonely', keys: [{ id: 'lonely', secret: 'l' }] }),
    },
  });
  const prodTok = (await s.token('ws-prod', 'p')).accessToken!;
  const writeTok = (await s.token('ws-prod', 'p', { scope: 'chat:write' })).accessToken!;
  const sandTok = (await s.token('ws-sand', 's')).accessToken!;
  const heldTok = (await s.token('held', 'h')).accessToken!;
  const lonelyTok = (await s.token('lonely', 'l')).accessToken!;
  const gw = (p: string) => `ws://127.0.0.1:${s.home.ports.http}${p}`;

  const refused = async (what: string, path: string, token: string | undefined, status: number, code: number) => {
    const o = await wsOpen(gw(path), token === undefined ? {} : { token });
    t.equal(o.status, status, `${what}: HTTP ${status}`);
    t.equal(fault(o.body)?.code, code, `${what}: ${code}`);
    return o;
  };
  const before = prod.handshakes.length;
  let o = await refused('no token', '/ws/1.0.0', undefined, 401, 900902);
  t.match(o.headers?.['www-authenticate'], /^Bearer realm=/, 'WWW-Authenticate');
  await refused('a token that is no token', '/ws/1.0.0', 'garbage', 401, 900901);
  await refused('a forged token', '/ws/1.0.0', await s.forge({ sub: 'x', client_id: 'ws-prod', jti: 'j', exp: Math.floor(Date.now() / 1000) + 60, iss: 'nobody' }), 401, 900901);
  await refused('no subscription', '/ws/1.0.0', lonelyTok, 403, 900908);
  await refused('subscription on hold', '/ws/1.0.0', heldTok, 401, 900909);
  await refused('scope missing', '/scoped/1.0.0', prodTok, 403, 900910);
  await refused('sandbox key, no sandbox endpoint', '/prodonly/1.0.0', sandTok, 401, 900901);
  await refused('blocked API', '/blocked/1.0.0', prodTok, 503, 700700);
  o = await wsOpen(gw('/nothing/1.0.0'), { token: prodTok });
  t.equal(o.status, 404, 'no API at the path: 404 from main');
  t.equal(prod.handshakes.length, before, 'no refused handshake reached the backend');

  o = await wsOpen(gw('/scoped/1.0.0'), { token: writeTok });
  t.ok(o.ws, 'scope granted: open');
  o.ws?.close();
  o = await wsOpen(gw('/open/1.0.0'));
  t.ok(o.ws, 'auth type None: open without a token');
  o.ws?.close();

  o = await wsOpen(gw('/ws/1.0.0'), { token: sandTok });
  t.ok(o.ws, 'sandbox key: open');
  o.ws!.send('hi');
  const [m] = await nextMessages(o.ws!, 1);
  t.equal(m![0].toString(), 'from sandbox', 'a sandbox key is routed to the sandbox endpoint');
  o.ws!.close();

  // Over TLS (the gateway's HTTPS port).
  o = await wsOpen(`wss://127.0.0.1:${s.home.ports.https}/ws/1.0.0`, { token: prodTok, rejectUnauthorized: false });
  t.ok(o.ws, 'wss:// on the HTTPS port');
  o.ws!.send('secure');
  const [m2] = await nextMessages(o.ws!, 1);
  t.equal(m2![0].toString(), 'secure', 'relayed over TLS');
  o.ws!.close();
});

t.test('a token revoked or expired mid-session closes the session with 1008', async (t) => {
  const be = await wsBackend(t);
  const { s, token, open } = await startWsGateway(t, be.url);
  const o = await open();
  const c = o.ws!;
  c.send('before');
  await nextMessages(c, 1);
  const end = closed(c);
  const r = await s.revoke('ws-app', 's', token);
  t.equal(r.status, 200, 'revoked');
  const { code, reason } = await end;
  t.equal(code, 1008, 'closed with 1008 (policy violation), without sending anything');
  t.match(reason, /revoked/);
  t.equal(be.received.filter(([d]) => d.toString() === 'before').length, 1, 'only the message before the revocation reached the backend');
});

t.test('backend failures at the handshake answer HTTP faults', async (t) => {
  const deadPort = await freePort();
  // A "backend" that refuses upgrades with its own answer.
  const refuser = http.createServer((_req, res) => { res.writeHead(403, { 'content-type': 'text/plain', 'x-backend': 'no' }); res.end('not for you'); });
  await new Promise<void>((r) => refuser.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { refuser.closeAllConnections(); refuser.close(() => r()); }));
  // A backend that accepts TCP but never answers the handshake.
  const silent = net.createServer((sock) => { sock.on('error', () => {}); sock.resume(); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => silent.close(() => r())));
  const s = await startSecured(t, {
    conf: { passthru_http: { backend_connect_timeout: '1s' } },
    apis: {
      dead: wsApiToml({ name: 'Dead', context: '/dead', production: `ws://127.0.0.1:${deadPort}` }),
      refuser: wsApiToml({ name: 'Refuser', context: '/refuser', production: `ws://127.0.0.1:${(refuser.address() as net.AddressInfo).port}` }),
      silent: wsApiToml({ name: 'Silent', context: '/silent', production: `ws://127.0.0.1:${(silent.address() as net.AddressInfo).port}` }),
    },
    apps: { app: appToml({ name: 'WsApp', keys: [{ id: 'ws-app', secret: 's' }], subscriptions: [{ api: 'Dead:1.0.0' }, { api: 'Refuser:1.0.0' }, { api: 'Silent:1.0.0' }] }) },
  });
  const token = (await s.token('ws-app', 's')).accessToken!;
  const gw = (p: string) => `ws://127.0.0.1:${s.home.ports.http}${p}`;

  let o = await wsOpen(gw('/dead/1.0.0'), { token });
  t.equal(o.status, 503, 'backend unreachable: 503');
  t.equal(fault(o.body)?.code, 101503, 'code 101503 (connection failed)');
  t.notMatch(o.body, String(deadPort), 'the fault does not name the backend');

  o = await wsOpen(gw('/refuser/1.0.0'), { token });
  t.equal(o.status, 403, "the backend's refusal is passed through");
  t.equal(o.body, 'not for you');
  t.equal(o.headers?.['x-backend'], 'no');

  o = await wsOpen(gw('/silent/1.0.0'), { token });
  t.equal(o.status, 504, 'no handshake answer in time: 504');
  t.equal(fault(o.body)?.code, 101508, 'code 101508 (connect timed out)');
});

t.test('a token that expires mid-session ends it with 1008, even when the client only listens', async (t) => {
  const be = await wsBackend(t);
  const s = await startSecured(t, {
    conf: { oauth: { token_validation: { app_access_token_validity: 3 } } },
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: be.url }) },
    apps: { app: appToml({ name: 'WsApp', keys: [{ id: 'ws-app', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0' }] }) },
  });
  const r = await s.token('ws-app', 's');
  t.equal((r.json as { expires_in?: number }).expires_in, 3, 'a 3 s token');
  const c = (await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { token: r.accessToken! })).ws!;
  const backendEnd = new Promise<number>((res) => be.last()!.once('close', (code: number) => res(code)));
  const { code, reason } = await closed(c, 10000);
  t.equal(code, 1008, 'closed with 1008');
  t.match(reason, /expired/);
  t.equal(await backendEnd, 1001, 'the backend gets 1001');
});

t.test('by default an application without a subscription to a WebSocket API gets 900908 (403) on the handshake, as on HTTP', async (t) => {
  const prod = await wsBackend(t);
  const s = await startSecured(t, {
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: prod.url }) },
    apps: {
      member: appToml({ name: 'Member', keys: [{ id: 'member', secret: 'm' }], subscriptions: [{ api: 'Ws:1.0.0' }] }),
      lonely: appToml({ name: 'Lonely', keys: [{ id: 'lonely', secret: 'l' }] }),
    },
  });
  const gw = `ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`;
  const before = prod.handshakes.length;
  const lonely = await wsOpen(gw, { token: (await s.token('lonely', 'l')).accessToken! });
  lonely.ws?.close();
  t.notOk(lonely.ws, 'no session for an unsubscribed application');
  t.equal(lonely.status, 403);
  t.equal(fault(lonely.body)?.code, 900908, 'Resource forbidden');
  t.equal(prod.handshakes.length, before, 'the backend never saw the handshake');
  const member = await wsOpen(gw, { token: (await s.token('member', 'm')).accessToken! });
  t.ok(member.ws, 'control: a subscribed application connects');
  member.ws?.close();
});

t.test('[sluice.websocket] require_subscription = false: any valid token may connect; a held subscription is still refused', async (t) => {
  const prod = await wsBackend(t);
  const s = await startSecured(t, {
    conf: { sluice: { websocket: { require_subscription: false } } },
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: prod.url }) },
    apps: {
      held: appToml({ name: 'Held', keys: [{ id: 'held', secret: 'h' }], subscriptions: [{ api: 'Ws:1.0.0', state: 'ON_HOLD' }] }),
      lonely: appToml({ name: 'Lonely', keys: [{ id: 'lonely', secret: 'l' }] }),
    },
  });
  const gw = `ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`;
  const open = await wsOpen(gw, { token: (await s.token('lonely', 'l')).accessToken! });
  t.ok(open.ws, 'an application without a subscription connects');
  open.ws?.close();
  const held = await wsOpen(gw, { token: (await s.token('held', 'h')).accessToken! });
  t.equal(held.status, 401);
  t.equal(fault(held.body)?.code, 900909, 'an inactive subscription is refused');
  const none = await wsOpen(gw, {});
  t.equal(none.status, 401, 'a token is still required');
});
