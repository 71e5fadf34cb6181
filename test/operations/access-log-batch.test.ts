import t from 'tap';
import { CallColumnsWriter, readCalls } from '../../engine/gateway/telemetry/call-columns.js';
import type { CallRecord } from '../../engine/gateway/telemetry/types.js';
import { gatewayLine, millis3 } from '../../engine/operations/access-log.js';
import { gatewayLines } from '../../engine/operations/access-log-batch.js';
import { writeCall } from '../helpers/call-columns.js';

const base: CallRecord = {
  startedAt: Date.UTC(2026, 10, 22, 10, 0, 0, 250), durationMs: 3.4123, method: 'GET', path: '/open/1.0.0/x', query: '', clientIp: '127.0.0.1', secure: false,
  status: 200, bytes: 24, userAgent: 'wrk', referer: '', api: { name: 'Open', version: '1.0.0', context: '/open', type: 'HTTP', resource: '/*' },
  auth: null, backendLatencyMs: 0.8, backendStartedAt: 0, backendUrl: 'http://127.0.0.1:18930', errorCode: 0, errorMessage: '',
  requestHeaders: null, responseHeaders: null, trace: null, thread: 0,
};
const caller = { application: 'AcmeApp', owner: 'admin', keyType: 'PRODUCTION', user: 'admin', tier: 'Gold', applicationTier: 'Unlimited' };

/** Runs of equal values (what the memo of the batch reuses) mixed with every field changing and with hostile values. */
const calls: CallRecord[] = [
  base, base, base,
  { ...base, auth: caller },
  { ...base, auth: caller, path: '/open/1.0.0/y' },
  { ...base, auth: caller, query: 'access_token=abc&x=1' },
  { ...base, auth: { ...caller, user: 'a b', application: 'App\n1.2.3.4' } },
  { ...base, auth: { ...caller, user: '' } },
  { ...base, api: null, status: 404, bytes: 0, errorCode: 900906 },
  { ...base, api: { ...base.api!, name: 'Caf\u00e9 Api', version: '' } },
  { ...base, userAgent: 'x"\n1.2.3.4 - root', referer: 'https://example.com/\u2603' },
  { ...base, method: 'POST', durationMs: 0.0004, status: 503, errorCode: 101503 },
  { ...base, clientIp: '::1', durationMs: 12345.6789, startedAt: base.startedAt + 1500 },
  base,
  // Numbers outside the digit writer's fast range take JavaScript's own form, as in the record's line.
  { ...base, durationMs: 1e20, bytes: 2 ** 53 + 2, errorCode: 900901 },
  { ...base, durationMs: -1, bytes: 0.5 },
  { ...base, durationMs: Number.NaN },
  // A line far longer than the batch's first estimate: the buffer grows and keeps what was written.
  { ...base, userAgent: `long ${'\u00e9x'.repeat(12000)}` },
  base,
];

t.test('a batch read from its columns gives the lines a record at a time gives, in order', async (t) => {
  const w = new CallColumnsWriter(64);
  for (const c of calls) writeCall(w, c);
  const batch = w.take()!;
  const expected = Buffer.from(readCalls(batch, 0).map(gatewayLine).join(''), 'utf8');
  const lines = gatewayLines(batch);
  t.ok(lines.equals(expected), 'the same bytes as the lines a record at a time, encoded as UTF-8');
  const text = lines.toString('utf8');
  t.equal(text.split('\n').length, calls.length + 1, 'one line per call: hostile values stay inside theirs');
  t.match(text, / - a\\x20b \[.* App\\x0a1\.2\.3\.4 -\n/, 'user and application escaped as tokens');
  t.match(text, /"GET \/open\/1\.0\.0\/x\?access_token=\*+&x=1 HTTP\/1\.1"/, 'credential parameters masked');
});

t.test('an empty batch is no text', async (t) => {
  const w = new CallColumnsWriter(4);
  writeCall(w, base);
  const one = w.take()!;
  t.equal(gatewayLines({ ...one, count: 0 }).length, 0);
});

t.test('milliseconds with three decimals, as toFixed(3) writes them', async (t) => {
  for (const v of [0, 0.0004, 0.001, 0.01, 0.1, 1, 3.4123, 9.9996, 99.0994, 1000, 12345.6789, 5e8]) t.equal(millis3(v), v.toFixed(3), String(v));
  // Random durations away from an exact tie in the fourth decimal (where the two may round apart).
  let seed = 7;
  const random = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  let checked = 0;
  for (let i = 0; i < 20000; i++) {
    const v = random() * 10 ** Math.floor(random() * 6);
    const fourth = Math.abs((v * 10000) % 10 - 5);
    if (fourth < 0.01) continue;
    if (millis3(v) !== v.toFixed(3)) t.fail(`${v}: ${millis3(v)} vs ${v.toFixed(3)}`);
    checked++;
  }
  t.ok(checked > 19000, `${checked} random durations agree`);
  t.equal(millis3(-1), '-1.000', 'outside the fast range: toFixed itself');
  t.equal(millis3(Number.NaN), 'NaN');
});
