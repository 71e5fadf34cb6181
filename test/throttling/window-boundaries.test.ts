import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { API_DIR, POLICY_DIR, nextWindow, sleep, statuses, throttledApi } from './fixtures.js';

/** Waits until the clock is `at` ms into a window of `windowMs`. */
async function at(windowMs: number, offset: number): Promise<void> {
  const into = Date.now() % windowMs;
  await sleep(into <= offset ? offset - into : windowMs - into + offset);
}

t.test('fixed windows aligned to the clock: the end of one window and the start of the next count apart', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/w.toml`]: `[[advanced]]
name = "TwoPer2Sec"
requests = 2
unit_time = 2
time_unit = "sec"
`,
    [`${API_DIR}/w.toml`]: throttledApi({ name: 'W', context: '/w', backend: be.url, policy: 'TwoPer2Sec' }),
  });
  // Late in a window: its quota, then throttled with Retry-After = the rest of the window.
  await at(2000, 1600);
  const late = [];
  for (let i = 0; i < 3; i++) late.push(await request(s.url('/w/1.0.0/x')));
  const winEnd = Math.ceil(Date.now() / 2000) * 2000;
  t.equal(statuses(late), '200,200,429', 'the window\'s quota is spent');
  t.equal(faultOf(late[2]!)?.code, 900800);
  t.equal(late[2]!.headers['retry-after'], String(Math.max(1, Math.ceil((winEnd - Date.now()) / 1000))), 'Retry-After: seconds until the window frees');
  // Just after the boundary: a fresh quota.
  await nextWindow(2000);
  const early = [];
  for (let i = 0; i < 3; i++) early.push(await request(s.url('/w/1.0.0/y')));
  t.equal(statuses(early), '200,200,429', 'a new window, a new quota');
  const reset = Number(early[0]!.headers['x-ratelimit-reset']);
  t.ok(reset === 2 || reset === 1, `X-RateLimit-Reset ${reset} counts down the 2-second window`);
});

t.test('windows are aligned to multiples of their length since the epoch', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${POLICY_DIR}/w.toml`]: `[[advanced]]
name = "OnePer3Sec"
requests = 1
unit_time = 3
time_unit = "sec"
`,
    [`${API_DIR}/w.toml`]: throttledApi({ name: 'W', context: '/w', backend: be.url, policy: 'OnePer3Sec' }),
  });
  await at(3000, 200);
  t.equal((await request(s.url('/w/1.0.0/a'))).status, 200);
  await at(3000, 2700);
  t.equal((await request(s.url('/w/1.0.0/b'))).status, 429, '2.5 s later, same window');
  await nextWindow(3000);
  t.equal((await request(s.url('/w/1.0.0/c'))).status, 200, 'the next multiple of 3 s opens a new window');
});
