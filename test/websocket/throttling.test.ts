import t from 'tap';
import type WebSocket from 'ws';
import { startSecured, appToml } from '../helpers/secured.js';
import { wsBackend, wsOpen, wsApiToml } from '../helpers/websockets.js';

const POLICIES = `[[subscription]]
name = "Ws5PerMin"
requests = 5
unit_time = 1
time_unit = "min"
stop_on_quota_reach = true

[[subscription]]
name = "WsBurst2"
requests = 100
unit_time = 1
time_unit = "min"
burst = { requests = 2, time_unit = "min" }

[[subscription]]
name = "WsCountOnly"
requests = 2
unit_time = 1
time_unit = "min"
stop_on_quota_reach = false

[[application]]
name = "App3PerMin"
requests = 3
unit_time = 1
time_unit = "min"
`;

/** Windows are aligned on the minute: start a test well inside one, so that no count resets mid-test. */
async function awayFromMinuteEdge(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 45_000) await new Promise((r) => setTimeout(r, 60_000 - into + 100));
}

/** Sends numbered messages one at a time, each waiting for its echo; stops at a close or after `max`. */
async function pump(c: WebSocket, max: number, waitMs = 500): Promise<{ echoed: number; close?: { code: number; reason: string } }> {
  let close: { code: number; reason: string } | undefined;
  c.once('close', (code: number, reason: Buffer) => { close = { code, reason: reason.toString() }; });
  let echoed = 0;
  for (let i = 0; i < max && !close; i++) {
    const got = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => { c.off('message', on); resolve(false); }, waitMs);
      const on = (): void => { clearTimeout(timer); resolve(true); };
      c.once('message', on);
      c.send(`m${i}`);
    });
    if (got) echoed++;
  }
  if (!close) await new Promise((r) => setTimeout(r, 200));
  return { echoed, ...(close ? { close } : {}) };
}

const apps = {
  sub5: appToml({ name: 'Sub5', keys: [{ id: 'sub5', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0', tier: 'Ws5PerMin' }] }),
  burst: appToml({ name: 'Burst', keys: [{ id: 'burst', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0', tier: 'WsBurst2' }] }),
  counted: appToml({ name: 'Counted', keys: [{ id: 'counted', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0', tier: 'WsCountOnly' }] }),
  app3: appToml({ name: 'App3', tier: 'App3PerMin', keys: [{ id: 'app3', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0' }] }),
};

t.test('messages count against the subscription and application policies; over the limit: close 4429', async (t) => {
  const be = await wsBackend(t);
  const s = await startSecured(t, {
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: be.url }) },
    apps,
    files: { 'repository/deployment/server/policies/ws.toml': POLICIES },
  });
  const open = async (id: string) => {
    const token = (await s.token(id, 's')).accessToken!;
    const o = await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { token });
    if (!o.ws) throw new Error(`handshake ${o.status}`);
    return o.ws;
  };
  await awayFromMinuteEdge();

  // (The handshake is an HTTP call: with a throttle phase in the gateway it counts as one request too.)
  let r = await pump(await open('sub5'), 10);
  t.ok(r.echoed >= 4 && r.echoed <= 5, `subscription 5/min: ${r.echoed} messages passed`);
  t.equal(r.close?.code, 4429, 'then closed with 4429');
  t.match(r.close?.reason, /900804/, 'the reason names 900804 (subscription level)');
  t.match(r.close?.reason, /Retry after \d+s/);
  // Messages and calls share the subscription's counter: a new handshake is itself over the quota.
  const again = await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { token: (await s.token('sub5', 's')).accessToken! });
  t.equal(again.status, 429, 'the quota is per subscription, not per connection: the next handshake is refused');
  t.notOk(again.ws);

  r = await pump(await open('burst'), 10);
  t.ok(r.echoed >= 1 && r.echoed <= 2, `burst 2/min: ${r.echoed} passed`);
  t.match(r.close?.reason, /900807/, 'burst control: 900807');

  r = await pump(await open('app3'), 10);
  t.ok(r.echoed >= 2 && r.echoed <= 3, `application 3/min: ${r.echoed} passed`);
  t.match(r.close?.reason, /900803/, 'application level: 900803');

  r = await pump(await open('counted'), 6);
  t.equal(r.echoed, 6, 'stop_on_quota_reach = false: counted, never refused');
  t.equal(r.close, undefined);
});

t.test('throttle_action = "drop": messages over the limit are dropped, the session stays', async (t) => {
  const be = await wsBackend(t);
  const s = await startSecured(t, {
    conf: { sluice: { websocket: { throttle_action: 'drop' } } },
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: be.url }) },
    apps,
    files: { 'repository/deployment/server/policies/ws.toml': POLICIES },
  });
  await awayFromMinuteEdge();
  const token = (await s.token('sub5', 's')).accessToken!;
  const c = (await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { token })).ws!;
  const r = await pump(c, 8, 300);
  t.ok(r.echoed >= 4 && r.echoed <= 5, `${r.echoed} of 8 passed`);
  t.equal(r.close, undefined, 'the session is still open');
  t.equal(be.received.length, r.echoed, 'dropped messages never reached the backend');
  const pong = new Promise((resolve) => c.once('pong', resolve));
  c.ping();
  await pong;
  t.pass('and still answers pings');
  c.close();
});

t.test('two io threads: one subscription limit for all sessions (the shared counters, with the handshakes)', async (t) => {
  const be = await wsBackend(t);
  const s = await startSecured(t, {
    conf: { passthru_http: { io_threads_per_reactor: 2 } },
    apis: { ws: wsApiToml({ name: 'Ws', context: '/ws', production: be.url }) },
    apps: { sub20: appToml({ name: 'Sub20', keys: [{ id: 'sub20', secret: 's' }], subscriptions: [{ api: 'Ws:1.0.0', tier: 'Ws20PerMin' }] }) },
    files: { 'repository/deployment/server/policies/ws.toml': `[[subscription]]
name = "Ws20PerMin"
requests = 20
unit_time = 1
time_unit = "min"
stop_on_quota_reach = true
` },
  });
  await awayFromMinuteEdge();
  const token = (await s.token('sub20', 's')).accessToken!;
  // Six handshakes first (each one a call on the subscription), so that the sessions spread over both threads.
  const sessions: WebSocket[] = [];
  for (let i = 0; i < 6; i++) {
    const o = await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/ws/1.0.0`, { token });
    if (!o.ws) throw new Error(`handshake ${o.status}`);
    sessions.push(o.ws);
  }
  let echoed = 0;
  const closes: number[] = [];
  for (const c of sessions) {
    const r = await pump(c, 6);
    echoed += r.echoed;
    if (r.close) closes.push(r.close.code);
  }
  t.equal(echoed, 14, '20 a minute: 6 handshakes and 14 messages, whichever thread carried them');
  t.ok(closes.length >= 1 && closes.every((c) => c === 4429), 'sessions over the limit were closed with 4429');
  for (const c of sessions) c.terminate();
});
