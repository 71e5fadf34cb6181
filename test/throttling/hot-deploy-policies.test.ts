import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';
import { API_DIR, POLICY_DIR, inOneWindow, policy, throttledApi } from './fixtures.js';

t.test('a changed policy applies without a restart; the count of the window carries over', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/p.toml`]: policy('advanced', 'Flex', 2),
    [`${API_DIR}/hot.toml`]: throttledApi({ name: 'Hot', context: '/hot', backend: be.url, resources: [{ policy: 'Flex' }] }),
  });
  await inOneWindow(60_000, 15_000);
  t.equal((await request(s.url('/hot/1.0.0/1'))).status, 200);
  t.equal((await request(s.url('/hot/1.0.0/2'))).status, 200);
  t.equal(faultOf(await request(s.url('/hot/1.0.0/3')))?.code, 900802);

  s.home.write(`${POLICY_DIR}/p.toml`, policy('advanced', 'Flex', 4));
  await eventually(async () => (await request(s.url('/hot/1.0.0/4'))).headers['x-ratelimit-limit'] === '4', 'the raised limit');
  // Two were counted before the change and one more by the probe that saw the new limit.
  t.equal((await request(s.url('/hot/1.0.0/5'))).status, 200, 'the fourth call of the window');
  t.equal((await request(s.url('/hot/1.0.0/6'))).status, 429);
});

t.test('a bad policy file is refused with file and line; the previous version stays in force', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/p.toml`]: policy('advanced', 'Keep', 1),
    [`${API_DIR}/hot.toml`]: throttledApi({ name: 'Hot', context: '/hot', backend: be.url, resources: [{ policy: 'Keep' }] }),
  });
  await inOneWindow(60_000, 15_000);
  t.equal((await request(s.url('/hot/1.0.0/1'))).status, 200);

  s.home.write(`${POLICY_DIR}/p.toml`, `[[advanced]]\nname = "Keep"\nrequests = = 5\n`);
  await eventually(() => s.home.logs().some((l) => /policy file not deployed/.test(String(l['msg']))), 'the syntax error');
  const syntax = s.home.logs().find((l) => /policy file not deployed/.test(String(l['msg'])))!;
  t.match(String(syntax['msg']), /p\.toml:3:\d+/, 'file, line and column');
  t.match(String(syntax['msg']), /previous version stays deployed/);
  t.equal((await request(s.url('/hot/1.0.0/2'))).status, 429, 'Keep (1 per minute) still applies');

  s.home.write(`${POLICY_DIR}/p.toml`, `[[advanced]]\nname = "Keep"\nrequests = 5\nunit_time = 1\ntime_unit = "fortnight"\n`);
  await eventually(() => s.home.logs().some((l) => /time_unit: expected one of sec, min, hour, day/.test(String(l['msg']))), 'the field error');
  const field = s.home.logs().find((l) => /time_unit: expected/.test(String(l['msg'])))!;
  t.match(String(field['msg']), /p\.toml:5: advanced\[0\]\.time_unit/, 'file, line and key path');

  s.home.write(`${POLICY_DIR}/p.toml`, `[[advanced]]\nname = "Keep"\nrequests = 5\n[[advanced.condition_group]]\nrequests = 1\nconditions = [ { type = "ip_range", value = "10.0.0.0/99" } ]\n`);
  await eventually(() => s.home.logs().some((l) => /prefix length out of range/.test(String(l['msg']))), 'the range error');
  t.match(String(s.home.logs().find((l) => /prefix length/.test(String(l['msg'])))!['msg']), /p\.toml:6:/, 'the line of the condition');

  s.home.write(`${POLICY_DIR}/p.toml`, `[[advanced]]\nname = "Keep"\nrequests = 5\nunknown_field = 1\n`);
  await eventually(() => s.home.logs().some((l) => /unknown field "unknown_field"/.test(String(l['msg']))), 'the unknown field');
  t.equal((await request(s.url('/hot/1.0.0/3'))).status, 429, 'still the first version');
});

t.test('a policy defined in two files: the first file loaded keeps it', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/a.toml`]: policy('advanced', 'Twice', 1),
    [`${POLICY_DIR}/b.toml`]: policy('advanced', 'Twice', 50),
    [`${API_DIR}/hot.toml`]: throttledApi({ name: 'Hot', context: '/hot', backend: be.url, policy: 'Twice' }),
  });
  t.equal((await request(s.url('/hot/1.0.0/1'))).headers['x-ratelimit-limit'], '1');
  t.ok(await eventually(() => s.home.logs().some((l) => /advanced policy Twice is already defined in .*a\.toml/.test(String(l['msg']))), 'the log line', 5000));
});

t.test('an API naming a policy that is not deployed gets the most restrictive policy of the level, logged once', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${API_DIR}/typo.toml`]: throttledApi({ name: 'Typo', context: '/typo', backend: be.url, policy: 'Platinum' }),
  });
  const r = await request(s.url('/typo/1.0.0/x'));
  t.equal(r.status, 200);
  t.equal(r.headers['x-ratelimit-limit'], '10000', '10KPerMin, the most restrictive shipped advanced policy');
  await request(s.url('/typo/1.0.0/y'));
  const warns = s.home.logs().filter((l) => /"Platinum" is not deployed/.test(String(l['msg'])));
  t.equal(warns.length, 1, 'one warning per name and io thread');
  t.match(String(warns[0]!['msg']), /10KPerMin/);
});
