import t from 'tap';
import { pino } from 'pino';
import { loadConfig } from '../../conf/loader.js';
import { LocalEventBus, type ThrottleDecisionEvent } from '../../engine/events/event-bus.js';
import { startGateway } from '../../engine/runtime/gateway-role.js';
import { ThrottlingExtension } from '../../engine/throttling/extension.js';
import { makeHome, eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, throttledApi } from './fixtures.js';

type Tap = Parameters<Parameters<typeof t.test>[1]>[0];

/** A gateway in this process with our own event bus, to watch what throttling publishes. */
async function gatewayWithBus(t: Tap, conf: Record<string, unknown>) {
  const be = await echoBackend(t);
  const home = await makeHome(conf, {
    [`${POLICY_DIR}/d.toml`]: policy('advanced', 'OnePerMin', 1),
    [`${API_DIR}/d.toml`]: throttledApi({ name: 'Dec', context: '/dec', backend: be.url, policy: 'OnePerMin' }),
  });
  const config = loadConfig(home.dir);
  const log = pino({ level: 'silent' });
  const bus = new LocalEventBus();
  const events: ThrottleDecisionEvent[] = [];
  bus.subscribe('throttle.decision', (e) => { events.push(e); });
  const ext = new ThrottlingExtension(config, log, bus);
  const gw = await startGateway(config, log, null, [ext]);
  t.teardown(async () => { await gw.stop(); home.cleanup(); });
  return { url: (p: string) => `http://127.0.0.1:${gw.ports.http}${p}`, events, ext };
}

t.test('a throttle decision is published once per key and window on the event bus, on the jms.destination topic', async (t) => {
  const g = await gatewayWithBus(t, {});
  await inOneWindow(60_000, 5000);
  t.equal((await request(g.url('/dec/1.0.0/a'))).status, 200);
  for (let i = 0; i < 3; i++) t.equal((await request(g.url('/dec/1.0.0/b'))).status, 429);
  await eventually(() => g.events.length === 1, 'the decision');
  await new Promise((r) => setTimeout(r, 200));
  t.equal(g.events.length, 1, 'three refusals, one decision');
  const e = g.events[0]!;
  t.equal(e.type, 'throttle.decision');
  t.equal(e.topic, 'throttleData', 'the default jms.destination');
  t.equal(e.level, 'api');
  t.equal(e.code, 900800);
  t.equal(e.policy, 'OnePerMin');
  t.equal(e.limit, 1);
  t.equal(e.throttled, true);
  t.equal(e.api, 'Dec:1.0.0');
  t.equal(e.until, Math.ceil(e.decidedAt / 60_000) * 60_000, 'until the end of the minute');
  t.equal(g.ext.recent.length, 1, 'kept for the status');
});

t.test('jms.destination names the topic; enable_data_publishing = false publishes nothing', async (t) => {
  const named = await gatewayWithBus(t, { apim: { throttling: { jms: { destination: 'acmeThrottle' } } } });
  await inOneWindow(60_000, 5000);
  await request(named.url('/dec/1.0.0/a'));
  await request(named.url('/dec/1.0.0/b'));
  await eventually(() => named.events.length === 1, 'the decision');
  t.equal(named.events[0]!.topic, 'acmeThrottle');

  const quiet = await gatewayWithBus(t, { apim: { throttling: { enable_data_publishing: false } } });
  await request(quiet.url('/dec/1.0.0/a'));
  t.equal((await request(quiet.url('/dec/1.0.0/b'))).status, 429, 'still throttled');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(quiet.events.length, 0, 'but not published');
});
