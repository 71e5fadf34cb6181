/**
 * The X-RateLimit fields are written from lines kept per field and value (transport/number-lines.ts), apart
 * from the rest of the head, which stays the kept one; headers added as text (CORS) and local answers take
 * them as pairs (CallState.extraResponseHeaders). Each answer must carry each field once, with its own value.
 */
import t from 'tap';
import { faultOf } from '../helpers/backends.js';
import { inOneWindow, policy, securedGateway } from './fixtures.js';

const fieldCount = (raw: string[], name: string): number => raw.filter((v, i) => i % 2 === 0 && v.toLowerCase() === name).length;

t.test('answers, CORS answers and throttle faults each carry each X-RateLimit field once, with its own value', async (t) => {
  const g = await securedGateway(t, {
    subPolicy: 'Acme6PerMin', policies: policy('subscription', 'Acme6PerMin', 6, 'min', 'stop_on_quota_reach = true'),
    conf: { apim: { cors: { enable: true, allow_origins: ['https://app.acme.test'], allow_methods: ['GET'], allow_headers: ['authorization'] } } },
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const plan = [{}, { origin: 'https://app.acme.test' }, {}, {}, { origin: 'https://app.acme.test' }, {}, {}, { origin: 'https://app.acme.test' }];
  const expected = ['5', '4', '3', '2', '1', '0', '0', '0'];
  for (let i = 0; i < plan.length; i++) {
    const r = await g.call(at, '/secure/1.0.0/x', plan[i]!);
    const what = `call ${i + 1}${'origin' in plan[i]! ? ' with an Origin' : ''}`;
    t.equal(r.status, i < 6 ? 200 : 429, `${what}: status`);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.equal(fieldCount(r.rawHeaders, name), 1, `${what}: one ${name}`);
    t.equal(r.headers['x-ratelimit-limit'], '6', `${what}: the limit`);
    t.equal(r.headers['x-ratelimit-remaining'], expected[i], `${what}: its own remaining`);
    t.ok(Number(r.headers['x-ratelimit-reset']) >= 1 && Number(r.headers['x-ratelimit-reset']) <= 60, `${what}: a reset within the window`);
    t.equal(r.headers['access-control-allow-origin'], 'origin' in plan[i]! ? 'https://app.acme.test' : undefined, `${what}: CORS only when asked`);
    if (i >= 6) t.equal(faultOf(r)?.code, 900804, `${what}: the throttle fault`);
  }
});
