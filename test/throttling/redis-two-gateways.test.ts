import t from 'tap';
import { Redis } from 'ioredis';
import { makeHome, eventually, type TestHome } from '../helpers/home.js';
import { echoBackend, request, faultOf, type ClientResponse } from '../helpers/backends.js';
import { requireBuild, startSluice as startProcess, waitPort } from '../fixtures/sluice-process.js';
import { API_DIR, POLICY_DIR, nextWindow, startRedis, throttledApi } from './fixtures.js';

const WINDOW = 15_000;
const LIMIT = 40;

/** `n` calls, alternating between the nodes, four at a time. */
async function burst(homes: readonly TestHome[], n: number, path = '/glob/1.0.0/x'): Promise<ClientResponse[]> {
  const out: ClientResponse[] = [];
  for (let i = 0; i < n; i += 4) {
    out.push(...await Promise.all([0, 1, 2, 3].filter((k) => i + k < n)
      .map((k) => request(`http://127.0.0.1:${homes[(i + k) % homes.length]!.ports.http}${path}`))));
  }
  return out;
}

const passed = (rs: readonly ClientResponse[]): number => rs.filter((r) => r.status === 200).length;
const logged = (h: TestHome, re: RegExp): number => h.logs().filter((l) => re.test(String(l['msg']))).length;

t.test('two gateway processes share one limit through Redis, keep serving when it dies, and resynchronise when it returns', async (t) => {
  requireBuild();
  const redis = await startRedis(t);
  const be = await echoBackend(t);
  const prefix = `sluice-test-${process.pid}:`;
  const conf = { apim: { redis_config: { enable: true, url: redis.url, sync_interval: 50, key_prefix: prefix } } };
  const files = {
    [`${POLICY_DIR}/global.toml`]: `[[advanced]]\nname = "Global40"\nrequests = ${LIMIT}\nunit_time = ${WINDOW / 1000}\ntime_unit = "sec"\n`,
    [`${API_DIR}/glob.toml`]: throttledApi({ name: 'Glob', context: '/glob', backend: be.url, policy: 'Global40' }),
  };
  const a = await makeHome(conf, files);
  const b = await makeHome(conf, files);
  t.teardown(() => { a.cleanup(); b.cleanup(); });
  const pa = startProcess(t, a.dir);
  const pb = startProcess(t, b.dir);
  await Promise.all([waitPort(a.ports.http, 40_000), waitPort(b.ports.http, 40_000)]).catch((err: Error) => {
    throw new Error(`${err.message}\n${pa.output()}\n${pb.output()}`);
  });
  await eventually(() => logged(a, /Redis connected/) === 1 && logged(b, /Redis connected/) === 1, 'both nodes on Redis', 15_000);

  const watcher = new Redis(redis.url, { lazyConnect: true });
  watcher.on('error', () => {});
  await watcher.connect();
  t.teardown(() => { watcher.disconnect(); });
  const decisions: { node: string; code: number }[] = [];
  await watcher.subscribe('throttleData');
  watcher.on('message', (_c: string, text: string) => { decisions.push(JSON.parse(text) as { node: string; code: number }); });
  await new Promise((r) => setTimeout(r, 1200)); // both heartbeats in: each node knows there are two

  // 1. One global limit: 80 calls over both nodes in one window pass the limit within 5%.
  await nextWindow(WINDOW);
  const one = await burst([a, b], 2 * LIMIT);
  const p1 = passed(one);
  t.comment(`window 1: ${p1} of ${one.length} passed (limit ${LIMIT})`);
  t.ok(p1 >= LIMIT * 0.95 && p1 <= LIMIT * 1.05, `${p1} passed: within 5% of the global limit ${LIMIT}`);
  t.ok(one.filter((r) => r.status === 429).every((r) => faultOf(r)?.code === 900800), 'the others are throttled with 900800');
  t.ok(passed(one.filter((_, i) => i % 2 === 0)) > 0 && passed(one.filter((_, i) => i % 2 === 1)) > 0, 'both nodes served');
  await eventually(() => decisions.length > 0, 'a decision on the throttleData channel');
  t.equal(decisions[0]!.code, 900800);

  // 2. Redis dies: both nodes keep serving on their own counters, and say so once.
  await redis.kill();
  await eventually(() => logged(a, /Redis is unreachable/) === 1 && logged(b, /Redis is unreachable/) === 1, 'the outage logged by both', 15_000);
  await nextWindow(WINDOW);
  const alone = await burst([a], LIMIT + 10);
  t.equal(passed(alone), LIMIT, 'node A alone enforces the whole limit on its own counter');
  const other = await burst([b], 10);
  t.equal(passed(other), 10, 'node B counts on its own: the outage costs accuracy, not availability');
  t.equal(logged(a, /Redis is unreachable/), 1, 'logged once, however many reconnection attempts');

  // 3. Redis returns (empty: its counters were lost) within the same window: the nodes report what they
  //    counted meanwhile, and the global count (50) is over the limit for both.
  await redis.restart();
  await eventually(() => logged(a, /Redis is back/) === 1 && logged(b, /Redis is back/) === 1, 'both nodes back on Redis', 15_000);
  await new Promise((r) => setTimeout(r, 300));
  const probe = new Redis(redis.url);
  probe.on('error', () => {});
  t.teardown(() => { probe.disconnect(); });
  const win = Math.floor(Date.now() / WINDOW);
  const global = Number(await probe.get(`${prefix}throttle:${WINDOW}:${win}:a\u001fGlob:1.0.0\u001fGlobal40`));
  t.ok(global >= LIMIT + 10, `the restarted Redis holds what both nodes counted meanwhile (${global})`);
  const after = await burst([b], 4);
  // B may still hold a small lease it took before A reported; beyond it, the spent window refuses.
  t.ok(passed(after) <= 2, `B learns the global count: ${passed(after)} of 4 passed`);

  // 4. And the next window is shared again.
  await nextWindow(WINDOW);
  const two = await burst([a, b], 2 * LIMIT);
  const p2 = passed(two);
  t.comment(`window after the outage: ${p2} of ${two.length} passed`);
  t.ok(p2 >= LIMIT * 0.95 && p2 <= LIMIT * 1.05, `${p2} passed: within 5% of ${LIMIT} again`);
  if (process.env['DUMP']) for (const h of [a, b]) for (const l of h.logs()) if (/throttl|Redis|sync/.test(String(l['msg']))) t.comment(JSON.stringify(l).slice(0, 300));
  t.equal(await probe.zcard(`${prefix}nodes`), 2, 'two live nodes registered');
});
