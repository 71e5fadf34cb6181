import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePolicyFile } from '../../engine/throttling/policy-file.js';
import { buildSnapshot, type ThrottleSettings } from '../../engine/throttling/policy-set.js';
import { checkPolicyFiles } from '../../engine/throttling/check.js';
import { pino } from 'pino';

const SHIPPED = fileURLToPathSafe(new URL('../../home/repository/deployment/server/policies/default-policies.toml', import.meta.url));
function fileURLToPathSafe(u: URL): string { return decodeURIComponent(u.pathname); }

const SETTINGS: ThrottleSettings = {
  blockConditions: true, headerConditions: true, queryConditions: true, jwtClaimConditions: true, unlimitedTier: true,
  trustedProxies: [], rateLimitHeaders: true, dataPublishing: true,
};

t.test('the shipped defaults: the reference system\'s tiers', async (t) => {
  const f = parsePolicyFile(fs.readFileSync(SHIPPED, 'utf8'), SHIPPED);
  const by = (level: string) => f.policies.filter((p) => p.level === level).map((p) => `${p.name}:${p.unlimited ? 'unlimited' : `${p.quota.requests}/${p.quota.unitTime}${p.quota.timeUnit}`}`);
  t.same(by('subscription'), ['Bronze:1000/1min', 'Silver:2000/1min', 'Gold:5000/1min', 'Unlimited:unlimited']);
  t.same(by('application'), ['10PerMin:10/1min', '20PerMin:20/1min', '50PerMin:50/1min', 'Unlimited:unlimited']);
  t.same(by('advanced'), ['10KPerMin:10000/1min', '20KPerMin:20000/1min', '50KPerMin:50000/1min', 'Unlimited:unlimited']);
  const snap = buildSnapshot([f], SETTINGS, 1, pino({ level: 'silent' }));
  t.same(snap.fallback, { subscription: 'Bronze', application: '10PerMin', advanced: '10KPerMin', custom: null }, 'the most restrictive of each level');
  const gated = buildSnapshot([f], { ...SETTINGS, unlimitedTier: false }, 1, pino({ level: 'silent' }));
  t.notOk(gated.policies.some((p) => p.name === 'Unlimited' && p.level === 'subscription'), 'enable_unlimited_tier = false: no Unlimited subscription tier');
  t.ok(gated.policies.some((p) => p.name === 'Unlimited' && p.level === 'advanced'), 'the advanced Unlimited stays');
});

t.test('every field of every table', async (t) => {
  const f = parsePolicyFile(`
[[subscription]]
name = "Plan"
requests = 100
unit_time = 5
time_unit = "minutes"
stop_on_quota_reach = false
burst = { requests = 10, time_unit = "sec" }

[[application]]
name = "Bytes"
bandwidth = 1.5
bandwidth_unit = "MB"
time_unit = "hour"

[[advanced]]
name = "Cond"
requests = 10
[[advanced.condition_group]]
requests = 1
time_unit = "day"
conditions = [ { type = "header", name = "X-A", value = "a|b", invert = true }, { type = "ip_range", value = "10.0.0.1-10.0.0.9" } ]

[[custom]]
name = "PerUserApi"
key_template = "$userId:$apiContext"
requests = 7

[[block_condition]]
type = "ip_range"
value = "2001:db8::/32"
invert = true
`, 'all.toml');
  const [sub, app, adv, custom] = f.policies;
  t.same(sub!.quota, { requests: 100, unitTime: 5, timeUnit: 'min' });
  t.equal(sub!.stopOnQuotaReach, false);
  t.same(sub!.burst, { requests: 10, timeUnit: 'sec' });
  t.same(app!.quota, { bandwidthBytes: 1572864, unitTime: 1, timeUnit: 'hour' });
  t.same(adv!.conditionGroups![0]!.conditions, [{ type: 'header', name: 'X-A', value: 'a|b', invert: true }, { type: 'ip_range', value: '10.0.0.1-10.0.0.9' }]);
  t.same(adv!.conditionGroups![0]!.quota, { requests: 1, unitTime: 1, timeUnit: 'day' });
  t.equal(custom!.keyTemplate, '$userId:$apiContext');
  t.same(f.blockConditions.map((b) => [b.type, b.value, b.enabled, b.invert]), [['IP_RANGE', '2001:db8::/32', true, true]]);
  t.equal(sub!.line, 2);
});

t.test('errors name the file, the line and the key path', async (t) => {
  const cases: [string, RegExp][] = [
    ['[[tier]]\nname = "x"\n', /bad\.toml:1: tier: unknown table "tier"/],
    ['[[subscription]]\nname = "A"\nrequests = 1\n[[subscription]]\nname = "A"\nrequests = 2\n', /bad\.toml:5: subscription\[1\]\.name: subscription policy "A" is already defined at line 1/],
    ['[[advanced]]\nname = "A"\n', /bad\.toml:1: advanced\[0\]: requests \(or bandwidth\) is required/],
    ['[[advanced]]\nname = "A"\nrequests = 1\nbandwidth = 2\n', /requests or bandwidth, not both/],
    ['[[advanced]]\nname = "A"\nrequests = 1.5\n', /bad\.toml:3: advanced\[0\]\.requests: expected a positive integer/],
    ['[[subscription]]\nname = "A"\nrequests = 1\nburst = { requests = 2, time_unit = "hour" }\n', /bad\.toml:4: subscription\[0\]\.burst\.time_unit: expected sec or min/],
    ['[[advanced]]\nname = "A"\nrequests = 1\n\n[[advanced.condition_group]]\nrequests = 1\nconditions = [ { type = "header", name = "X", value = "(" } ]\n', /bad\.toml:7: .*not a regular expression/],
    ['[[advanced]]\nname = "A"\nrequests = 1\n[[advanced.condition_group]]\nrequests = 1\nconditions = [ { type = "cookie", value = "x" } ]\n', /expected one of header, query, jwt_claim, ip, ip_range/],
    ['[[advanced]]\nname = "A"\nrequests = 1\n[[advanced.condition_group]]\nrequests = 1\nconditions = [ { type = "ip", value = "10.0.0.0/8" } ]\n', /is a range: use type = "ip_range"/],
    ['[[custom]]\nname = "C"\nrequests = 1\nkey_template = "$user"\n', /bad\.toml:4: custom\[0\]\.key_template: unknown variable \$user/],
    ['[[custom]]\nname = "C"\nrequests = 1\nkey_template = "fixed"\n', /needs at least one variable/],
    ['[[subscription]]\nname = "U"\nunlimited = true\nrequests = 3\n', /bad\.toml:4: subscription\[0\]\.requests: an unlimited policy has no quota/],
    ['[[block_condition]]\ntype = "HOST"\nvalue = "x"\n', /bad\.toml:2: block_condition\[0\]\.type: expected one of USER, IP, IP_RANGE, APPLICATION, API/],
    ['[[block_condition]]\ntype = "IP_RANGE"\nvalue = "10.0.0.0/40"\n', /bad\.toml:3: .*prefix length out of range/],
    ['[[block_condition]]\ntype = "API"\nvalue = "pizzashack"\n', /names the API context/],
    ['[[subscription]]\nname = "A"\nrequests = 1\nstop_on_quota_reach = "maybe"\n', /bad\.toml:4: .*expected true or false/],
    ['[[application]]\nname = "A"\nrequests = 1\nburst = { requests = 1 }\n', /bad\.toml:4: application\[0\]\.burst: unknown field "burst"/],
    ['name = = 1\n', /bad\.toml:1:\d+: TOML syntax error/],
  ];
  for (const [text, re] of cases) {
    t.throws(() => parsePolicyFile(text, 'bad.toml'), re, re.source);
  }
});

t.test('check-config\'s view of the policy folder', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-policies-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'good.toml'), '[[advanced]]\nname = "A"\nrequests = 1\n');
  t.same(checkPolicyFiles(dir).errors, []);
  fs.writeFileSync(path.join(dir, 'bad.toml'), '[[advanced]]\nname = "A"\nrequests = 0\n');
  const problems = checkPolicyFiles(dir).errors;
  t.equal(problems.length, 1);
  t.match(problems[0], /bad\.toml:3: advanced\[0\]\.requests: expected a positive integer, got 0/);
});
