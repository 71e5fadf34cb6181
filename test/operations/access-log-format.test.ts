import t from 'tap';
import { gatewayLine, quoted } from '../../engine/operations/access-log.js';
import type { CallRecord } from '../../engine/gateway/telemetry/types.js';

t.test('quoted fields: plain ASCII as is, anything that could break or forge a line escaped', async (t) => {
  t.equal(quoted(''), '"-"');
  t.equal(quoted('curl/8.5.0 (x86_64) ~!'), '"curl/8.5.0 (x86_64) ~!"');
  t.equal(quoted('a"b'), '"a\\"b"');
  t.equal(quoted('a\\b'), '"a\\\\b"');
  t.equal(quoted('evil\n127.0.0.1 - admin'), '"evil\\x0a127.0.0.1 - admin"', 'a newline cannot start a forged line');
  t.equal(quoted('tab\there'), '"tab\\x09here"');
  t.equal(quoted('del\x7f'), '"del\\x7f"');
  t.equal(quoted('caf\xe9'), '"caf\\xe9"', 'latin1 bytes as \\xNN');
  t.equal(quoted('snow\u2603'), '"snow%E2%98%83"', 'wider characters percent-encoded');
});

t.test('a gateway line: one line, fields in the documented order', async (t) => {
  const r: CallRecord = {
    startedAt: Date.UTC(2026, 10, 22, 10, 0, 0), durationMs: 3.4123, method: 'GET', path: '/secure/1.0.0/x', query: '', clientIp: '127.0.0.1',
    secure: false, status: 200, bytes: 2, userAgent: 'curl/8.5.0', referer: '', api: { name: 'AcmeSecure', version: '1.0.0', context: '/secure', type: 'HTTP', resource: '/*' },
    auth: { application: 'AcmeApp', owner: 'admin', keyType: 'PRODUCTION', user: 'admin', tier: 'Unlimited', applicationTier: 'Unlimited' },
    backendLatencyMs: 1, backendStartedAt: 0, backendUrl: '', errorCode: 0, errorMessage: '', requestHeaders: null, responseHeaders: null, trace: null, thread: 0,
  };
  t.equal(gatewayLine(r), '127.0.0.1 - admin [22/Nov/2026:10:00:00 +0000] "GET /secure/1.0.0/x HTTP/1.1" 200 2 "-" "curl/8.5.0" 3.412 AcmeSecure:1.0.0 AcmeApp -\n');
  const nasty = gatewayLine({ ...r, userAgent: 'x"\n1.2.3.4 - root', auth: { ...r.auth!, user: 'a b' }, status: 503, bytes: 0, errorCode: 101503 });
  t.equal(nasty.split('\n').length, 2, 'still one line');
  t.match(nasty, / - a\\x20b \[/, 'a user with a space stays one token');
  t.match(nasty, /"x\\"\\x0a1\.2\.3\.4 - root"/);
  t.match(nasty, / 503 - /, 'no body: -');
  t.match(nasty, / 101503\n$/, 'the error code last');
});
