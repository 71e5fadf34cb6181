import t from 'tap';
import net from 'node:net';
import http from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { faultOf } from '../helpers/backends.js';
import { RepeatedWarnings } from '../../engine/log/repeated-warnings.js';

/** A pino logger whose records land in an array. */
function captured(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const out = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>); cb(); } });
  return { log: pino({ level: 'debug' }, out), lines };
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.test('a repeated warning is logged once per window, then once more with the count of what was suppressed', async (t) => {
  const { log, lines } = captured();
  const w = new RepeatedWarnings(log, { windowMs: 200 });
  t.teardown(() => w.stop());
  for (let i = 0; i < 50; i++) w.warn('backend-down http://a', { backend: 'http://a', n: i }, 'backend connection refused');
  w.warn('backend-down http://b', { backend: 'http://b' }, 'backend connection refused');
  await new Promise((r) => setImmediate(r));
  t.equal(lines.length, 2, 'the first of each kind at once');
  t.match(lines[0], { level: 40, msg: 'backend connection refused', backend: 'http://a', n: 0 });
  t.notOk('suppressed' in lines[0]!, 'the first line suppressed nothing');
  await eventually(() => lines.length === 3, 'the summary line at the end of the window', 3000);
  t.match(lines[2], { level: 40, backend: 'http://a', n: 49, suppressed: 49, windowMs: 200 }, 'the summary carries the last occurrence and the count');
  t.match(String(lines[2]!['msg']), /backend connection refused \(49 more like this in the last 0\.2 s\)/);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(lines.length, 3, 'a quiet kind writes nothing more');
  w.warn('backend-down http://a', { backend: 'http://a' }, 'backend connection refused');
  t.equal(lines.length, 4, 'after a quiet window the next one is logged at once');
});

t.test('the number of kinds tracked is bounded: the rest share one counter', async (t) => {
  const { log, lines } = captured();
  const w = new RepeatedWarnings(log, { windowMs: 60_000, maxKinds: 3 });
  t.teardown(() => w.stop());
  for (let i = 0; i < 100; i++) w.warn(`kind-${i}`, { i }, 'many kinds');
  t.equal(lines.length, 4, 'three kinds, then one line for all the others');
  t.equal(w.kinds, 4, 'the tracked kinds stay bounded');
  w.stop();
  t.match(lines.at(-1), { suppressed: 96 }, 'stop writes what is still counted');
});

t.test('a dead backend under load: one WARN line per window with the count, not one per failed call', async (t) => {
  const port = await closedPort();
  const s = await startSluice(t, {}, { [`${API_DIR}/dead.toml`]: apiToml({ name: 'Dead', context: '/dead', production: `http://127.0.0.1:${port}` }) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  t.teardown(() => agent.destroy());
  const call = (): Promise<{ status: number; code?: number }> => new Promise((resolve) => {
    http.get(s.url('/dead/1.0.0/x'), { agent }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { let code: number | undefined; try { code = faultOf({ json: JSON.parse(text) } as never)?.code; } catch { /* not JSON */ } resolve({ status: res.statusCode ?? 0, ...(code !== undefined ? { code } : {}) }); });
    }).on('error', () => resolve({ status: 0 }));
  });
  const results: { status: number; code?: number }[] = [];
  await Promise.all(Array.from({ length: 20 }, async () => { for (let i = 0; i < 30; i++) results.push(await call()); }));
  t.equal(results.length, 600);
  t.ok(results.every((r) => r.status === 503 && r.code === 101503), 'every call answered 503 / 101503');
  await s.stop();
  const warns = s.home.logs().filter((l) => (l['level'] === 40 || l['level'] === 'warn') && l['code'] === 101503);
  t.ok(warns.length >= 1 && warns.length <= 4, `${warns.length} WARN lines for 600 failed calls (one per window and a summary, not one per call)`);
  // A line without `suppressed` is one failure; a summary line stands for the `suppressed` failures it counts.
  const counted = warns.reduce((n, l) => n + (l['suppressed'] === undefined ? 1 : Number(l['suppressed'])), 0);
  t.equal(counted, 600, 'the lines and their suppressed counts add up to every failed call');
});
