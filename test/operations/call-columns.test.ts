import t from 'tap';
import { CallColumnsWriter, readCalls, releaseColumns } from '../../engine/gateway/telemetry/call-columns.js';
import { writeCall as write } from '../helpers/call-columns.js';
import type { CallRecord } from '../../engine/gateway/telemetry/types.js';

const base: CallRecord = {
  startedAt: 1_763_800_000_123.25, durationMs: 1.5, method: 'GET', path: '/echo/1.0.0/x', query: 'a=1', clientIp: '127.0.0.1', secure: false,
  status: 200, bytes: 24, userAgent: 'wrk', referer: '', api: { name: 'Echo', version: '1.0.0', context: '/echo', type: 'HTTP', resource: '/*' },
  auth: null, backendLatencyMs: 0.8, backendStartedAt: 1_763_800_000_123.5, backendUrl: 'http://127.0.0.1:18930', errorCode: 0, errorMessage: '',
  requestHeaders: null, responseHeaders: null, trace: null, thread: 1,
};

t.test('calls cross in columns and come back as the same records', async (t) => {
  const calls: CallRecord[] = [
    base,
    { ...base, path: '/echo/1.0.0/y', status: 503, errorCode: 101503, errorMessage: 'Connection refused in REQUEST_READY', backendLatencyMs: -1, backendStartedAt: -1 },
    { ...base, api: null, backendUrl: '', status: 404, secure: true },
    { ...base, auth: { application: 'AcmeApp', owner: 'admin', keyType: 'PRODUCTION', user: 'admin', tier: 'Gold', applicationTier: 'Unlimited' },
      requestHeaders: ['x-a', '1'], trace: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), parentId: '', backendSpanId: 'c'.repeat(16), sampled: true } },
    { ...base, method: 'POST', userAgent: '', query: '' },
    base,
  ];
  const w = new CallColumnsWriter(8);
  for (const c of calls) write(w, c);
  const e = w.take()!;
  t.equal(e.count, calls.length);
  t.same(readCalls(e, 1), calls, 'every field, null API and caller included, extras where they were');
  t.ok(e.strings.length < 45, `repeated strings are written once per run (${e.strings.length} in the table for ${calls.length * 19} string fields)`);
  t.equal(w.take(), null, 'the writer starts empty after take');
  write(w, calls[3]!);
  t.same(readCalls(w.take()!, 2), [{ ...calls[3]!, thread: 2 }], 'a new batch does not refer to the last batch\'s strings');
});

t.test('columns written as the previous row\'s (same) come back as that row\'s, and only for the same object', async (t) => {
  const gold = { application: 'AcmeApp', owner: 'admin', keyType: 'PRODUCTION', user: 'admin', tier: 'Gold', applicationTier: 'Unlimited' } as const;
  const goldAgain = { ...gold, tier: 'Silver' };
  const other = { name: 'Other', version: '2.0', context: '/other', type: 'WS', resource: '/*' };
  const calls: CallRecord[] = [
    { ...base, auth: gold },
    { ...base, auth: gold },
    { ...base, auth: goldAgain, path: '/echo/1.0.0/z' },
    { ...base, auth: null, api: other },
    { ...base, auth: null, api: other },
    { ...base, auth: null, api: null },
    { ...base, auth: gold, api: null },
    { ...base, auth: gold },
  ];
  const w = new CallColumnsWriter(16);
  for (const c of calls) write(w, c, true);
  t.same(readCalls(w.take()!, 1), calls, 'each row has its own API and caller');
  // A new batch: the first row writes its groups, whatever the last batch's last row was.
  write(w, calls[7]!, true);
  write(w, calls[7]!, true);
  t.same(readCalls(w.take()!, 1), [calls[7], calls[7]], 'a new batch does not repeat the last batch\'s rows');
});

t.test('the writer says when its batch is full', async (t) => {
  const w = new CallColumnsWriter(2);
  write(w, base);
  t.notOk(w.full);
  write(w, base);
  t.ok(w.full);
  t.equal(w.take()!.count, 2);
  t.notOk(w.full);
});

t.test('a batch is read where it was written, in shared memory, and that memory is written again only once the reader gives it back', async (t) => {
  const w = new CallColumnsWriter(4);
  const batch = (path: string): CallRecord[] => [{ ...base, path }, { ...base, path: `${path}/2`, status: 201 }];
  const taken = [];
  for (let i = 0; i < 4; i++) {
    for (const c of batch(`/b${i}`)) write(w, c);
    taken.push(w.take()!);
  }
  t.ok(taken.every((e) => e.numbers.buffer instanceof SharedArrayBuffer && e.refs.buffer instanceof SharedArrayBuffer), 'the columns are views of shared memory, not copies');
  t.same(new Set(taken.map((e) => e.segment)).size, 4, 'each batch out has a segment of its own');

  // Every segment is out: the next batch is written in the writer's own memory and copied, not held back.
  for (const c of batch('/b4')) write(w, c);
  const own = w.take()!;
  t.equal(own.segment, -1);
  t.notOk(own.numbers.buffer instanceof SharedArrayBuffer, 'a batch with no segment free comes as its own copy');
  t.same(readCalls(own, 1), batch('/b4'));
  releaseColumns(own);

  t.same(taken.map((e) => readCalls(e, 1)), [0, 1, 2, 3].map((i) => batch(`/b${i}`)), 'no later batch wrote over a batch not given back');

  releaseColumns(taken[2]!);
  for (const c of batch('/b5')) write(w, c);
  const again = w.take()!;
  t.equal(again.segment, taken[2]!.segment, 'the segment given back is the next batch\'s');
  t.same(readCalls(again, 1), batch('/b5'));
  t.same(readCalls(taken[1]!, 1), batch('/b1'), 'the batches still out are as they were');
});
