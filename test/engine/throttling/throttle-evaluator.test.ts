// The throttle decision in process, without a gateway: ThrottleEvaluator over a real shared counter table,
// reporting through a real ThrottleReporter on a BroadcastChannel this test listens to. Time is passed
// in (10 minutes into an hour), so one-hour windows never roll over under the test.
import t from 'tap';
import { pino } from 'pino';
import type { AuthContext, Call } from '../../../engine/kernel/call.js';
import type { ApiDefinition, ResourceDefinition } from '../../../engine/registry/types.js';
import { createSharedCounters } from '../../../engine/throttling/counter-table.js';
import { LEVEL_ERROR } from '../../../engine/throttling/errors.js';
import type { DecisionFacts, IoThrottleMessage } from '../../../engine/throttling/messages.js';
import { parsePolicyFile } from '../../../engine/throttling/policy-file.js';
import { buildSnapshot, type ThrottleSettings } from '../../../engine/throttling/policy-set.js';
import { ThrottleEvaluator } from '../../../engine/throttling/throttle-evaluator.js';
import { ThrottleReporter } from '../../../engine/throttling/throttle-reporter.js';

const SETTINGS: ThrottleSettings = {
  blockConditions: true, headerConditions: true, queryConditions: true, jwtClaimConditions: true, unlimitedTier: true,
  trustedProxies: [], rateLimitHeaders: true, dataPublishing: true,
};
const NOW = Date.UTC(2030, 0, 1, 12, 10);
const LEFT = 50 * 60_000;

const POLICIES = `
[[advanced]]
name = "ApiFive"
requests = 5
time_unit = "hour"

[[advanced]]
name = "ResTwo"
requests = 2
time_unit = "hour"

[[advanced]]
name = "ResMany"
requests = 100
time_unit = "hour"

[[advanced]]
name = "ByHeader"
requests = 100
time_unit = "hour"
[[advanced.condition_group]]
requests = 1
time_unit = "hour"
conditions = [ { type = "header", name = "X-Plan", value = "free" } ]

[[subscription]]
name = "Counted"
requests = 2
time_unit = "hour"
stop_on_quota_reach = false

[[subscription]]
name = "Msgs"
requests = 2
time_unit = "hour"

[[application]]
name = "AppThree"
requests = 3
time_unit = "hour"

[[block_condition]]
type = "APPLICATION"
value = "banned"
`;

let channels = 0;

/** An evaluator with the policies above, its reports (channel messages) and its log lines. */
function setUp(t: Tap.Test): { ev: ThrottleEvaluator; reports: IoThrottleMessage[]; logs: Record<string, unknown>[] } {
  const logs: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => { logs.push(JSON.parse(line) as Record<string, unknown>); } });
  const reporter = new ThrottleReporter(log);
  const ev = new ThrottleEvaluator(reporter, log);
  const name = `throttle-evaluator-test-${process.pid}-${channels++}`;
  const reports: IoThrottleMessage[] = [];
  const listener = new BroadcastChannel(name);
  listener.onmessage = (e) => { reports.push((e as MessageEvent<IoThrottleMessage>).data); };
  t.teardown(() => listener.close());
  reporter.connect(name);
  ev.useCounters(createSharedCounters(1024));
  ev.usePolicies(buildSnapshot([parsePolicyFile(POLICIES, 'test.toml')], SETTINGS, 1, log));
  return { ev, reports, logs };
}

function api(id: string, policy: string, resources: [string, string][]): ApiDefinition {
  return {
    id, name: id, context: `/${id}`, version: '1.0.0', type: 'HTTP', lifecycleState: 'PUBLISHED', throttlingPolicy: policy,
    endpoints: {}, source: 'test',
    resources: resources.map(([uriTemplate, throttlingPolicy]) => ({ verb: 'GET', uriTemplate, authType: 'None', throttlingPolicy, scopes: [] })),
  } as unknown as ApiDefinition;
}

function caller(application: string, tier: string, applicationTier = 'Unlimited'): AuthContext {
  return {
    application, subscriber: 'admin', consumerKey: 'ck', keyType: 'PRODUCTION', user: 'alice', userType: 'APPLICATION_USER',
    scopes: [], tokenId: 't', tokenType: 'JWT', applicationTier, claims: null, expiresAt: 0, tier,
  };
}

/** What the evaluator reads of a call. */
function call(auth: AuthContext | null, headers: Record<string, string> = {}): Call {
  return {
    auth, clientIp: '192.0.2.7', reqHeaders: [], query: '', contentLength: 0, properties: null, respBytes: 0,
    header: (name: string) => headers[name],
  } as unknown as Call;
}

/** Reports are delivered on a later turn of the event loop (and claimed keys are batched per turn). */
async function delivered(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
}

function decisions(reports: readonly IoThrottleMessage[]): DecisionFacts[] {
  return reports.flatMap((m) => (m.t === 'decision' ? [m.d] : []));
}

t.test('API and resource levels: the tightest level, a refusal, and the earlier level\'s count given back', async (t) => {
  const { ev, reports } = setUp(t);
  const shop = api('shop:1.0.0', 'ApiFive', [['/a', 'ResTwo'], ['/b', 'ResMany']]);
  const [a, b] = shop.resources as [ResourceDefinition, ResourceDefinition];
  t.ok(ev.ready);

  t.ok(ev.evaluate(call(null), shop, a, NOW));
  t.same([ev.bestRemaining, ev.bestLimit, ev.bestResetMs], [1, 2, LEFT], 'the resource level is the tightest');
  t.ok(ev.evaluate(call(null), shop, a, NOW));
  t.equal(ev.bestRemaining, 0);

  t.notOk(ev.evaluate(call(null), shop, a, NOW), 'the third call on /a is refused');
  t.equal(ev.refusedLevel, 'resource');
  t.equal(ev.refusedQuota?.limit, 2);
  t.equal(ev.retryMs, LEFT, 'until the window ends');
  t.notOk(ev.evaluate(call(null), shop, a, NOW), 'and the fourth');

  t.ok(ev.evaluate(call(null), shop, b, NOW));
  t.same([ev.bestRemaining, ev.bestLimit], [2, 5], 'the API level counted 3 calls, not 5: the refused ones were given back');

  await delivered();
  const d = decisions(reports);
  t.equal(d.length, 1, 'one decision per key and window');
  t.match(d[0], { level: 'resource', policy: 'ResTwo', code: LEVEL_ERROR.resource.code, throttled: true, limit: 2, api: 'shop:1.0.0', until: NOW + LEFT });
  t.notOk('application' in d[0]!, 'an anonymous call names no application');
  const keys = reports.flatMap((m) => (m.t === 'keys' ? m.keys : []));
  t.equal(keys.length, 6, 'three slots claimed (API, /a, /b), each announced once with its key');
  t.ok(keys.some((k) => typeof k === 'string' && k.includes('ResTwo')));
});

t.test('a conditional group counts apart from the policy\'s own quota', async (t) => {
  const { ev } = setUp(t);
  const shop = api('plans:1.0.0', 'ByHeader', [['/*', 'Unlimited']]);
  const res = shop.resources[0]!;
  t.ok(ev.evaluate(call(null, { 'x-plan': 'free' }), shop, res, NOW));
  t.notOk(ev.evaluate(call(null, { 'x-plan': 'free' }), shop, res, NOW), 'the group allows one');
  t.equal(ev.refusedLevel, 'api');
  t.ok(ev.evaluate(call(null, { 'x-plan': 'paid' }), shop, res, NOW), 'another plan counts against the policy\'s 100');
  t.same([ev.bestRemaining, ev.bestLimit], [99, 100]);
});

t.test('block conditions refuse with no quota, and the block is logged', async (t) => {
  const { ev, logs } = setUp(t);
  const shop = api('open:1.0.0', 'Unlimited', [['/*', 'Unlimited']]);
  const res = shop.resources[0]!;
  t.notOk(ev.evaluate(call(caller('banned', 'Unlimited')), shop, res, NOW));
  t.equal(ev.refusedLevel, 'blocked');
  t.equal(ev.refusedQuota, null);
  t.match(logs.find((l) => l['msg'] === 'call blocked by a block condition'), { api: 'open:1.0.0', application: 'banned', user: 'alice' });
  t.ok(ev.evaluate(call(caller('fine', 'Unlimited')), shop, res, NOW), 'another application passes');
});

t.test('subscription and application levels; a quota that lets calls continue is reported once', async (t) => {
  const { ev, reports, logs } = setUp(t);
  const shop = api('sub:1.0.0', 'Unlimited', [['/*', 'Unlimited']]);
  const res = shop.resources[0]!;
  const who = caller('app1', 'Counted', 'AppThree');
  for (let i = 0; i < 3; i++) t.ok(ev.evaluate(call(who), shop, res, NOW), `call ${i + 1}: over the subscription's 2 from the third, and it passes`);
  t.notOk(ev.evaluate(call(who), shop, res, NOW), 'the fourth: the application policy\'s 3');
  t.equal(ev.refusedLevel, 'application');
  await delivered();
  t.same(decisions(reports).map((d) => [d.level, d.throttled, d.application, d.user]), [
    ['subscription', false, 'app1', 'alice'],
    ['application', true, 'app1', 'alice'],
  ]);
  t.ok(logs.some((l) => l['msg'] === 'quota reached; calls continue (stop_on_quota_reach = false)' && l['policy'] === 'Counted'));
});

t.test('WebSocket messages count in the same counters as calls', async (t) => {
  const { ev } = setUp(t);
  const who = caller('ws-app', 'Msgs');
  t.ok(ev.limitsMessages(who));
  t.notOk(ev.limitsMessages(caller('ws-app', 'Unlimited')), 'Unlimited at both levels: not throttled at all');
  const shop = api('ws:1.0.0', 'Unlimited', [['/*', 'Unlimited']]);
  t.ok(ev.evaluate(call(who), shop, shop.resources[0]!, NOW), 'a call on the subscription');
  const refusal = { code: 0, retryAfterMs: 0 };
  t.ok(ev.countMessage(NOW, who, 'ws:1.0.0', refusal), 'one message: the second of the subscription\'s 2');
  t.notOk(ev.countMessage(NOW, who, 'ws:1.0.0', refusal));
  t.same(refusal, { code: LEVEL_ERROR.subscription.code, retryAfterMs: LEFT });
});

t.test('before its state arrives the evaluator is not ready and lets messages through', async (t) => {
  const log = pino({ level: 'silent' });
  const ev = new ThrottleEvaluator(new ThrottleReporter(log), log);
  t.notOk(ev.ready);
  t.ok(ev.countMessage(NOW, caller('x', 'Msgs'), 'ws:1.0.0', { code: 0, retryAfterMs: 0 }));
  t.notOk(ev.limitsMessages(caller('x', 'Msgs')));
});
