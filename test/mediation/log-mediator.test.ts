// log: writes through the logger it is given (never the console), at the category's level, with its properties.
import t from 'tap';
import { captureLogger, message, registryOf, seq, single } from './fixtures/helpers.js';

t.test('custom level: only the properties, joined by the separator, at the category level', async (t) => {
  const { logger, records } = captureLogger();
  const reg = single(`<log level="custom" category="WARN" separator=" | ">
      <property name="text" value="auth failed"/>
      <property name="code" expression="get-property('ERROR_CODE')"/>
      <property name="api" expression="$ctx:api.ut.api"/>
      <property name="none" expression="$ctx:missing"/>
    </log>`, {}, logger);
  reg.run('t', message('fault', { properties: [['ERROR_CODE', 900901]], facts: { apiName: 'Pizza' } }));
  t.equal(records.length, 1);
  t.equal(records[0]!.level, 40, 'WARN');
  t.equal(records[0]!.msg, 'text = auth failed | code = 900901 | api = Pizza | none = null');
  t.equal(records[0]!['sequence'], 't');
  t.equal(records[0]!['component'], 'mediation');
});

t.test('simple, headers and full levels add the message facts, headers (Authorization masked) and payload', async (t) => {
  const { logger, records } = captureLogger();
  const reg = single('<log/><log level="headers" category="DEBUG"/><log level="full" category="ERROR"/>', {}, logger);
  const m = message('request', {
    facts: { method: 'GET', path: '/pizzashack/1.0.0/menu', apiName: 'Pizza', apiVersion: '1.0.0', messageId: 'urn:uuid:1' },
    headers: [['Authorization', 'Bearer secret-token'], ['Accept', 'application/json']],
    body: '{"a":1}',
    contentType: 'application/json',
  });
  reg.run('t', m);
  t.equal(records.length, 3);
  t.equal(records[0]!.msg, 'Direction: request, Method: GET, To: /pizzashack/1.0.0/menu, MessageID: urn:uuid:1, API: Pizza:1.0.0');
  t.equal(records[0]!.level, 30);
  t.match(records[1]!.msg, /Authorization: \*\*\*\*\*\*\*\*, Accept: application\/json$/);
  t.notMatch(records[1]!.msg, /secret-token/);
  t.equal(records[1]!.level, 20);
  t.match(records[2]!.msg, /Payload: \{"a":1\}$/);
  t.equal(records[2]!.level, 50);
});

t.test('a disabled level costs nothing and writes nothing; no logger means no output', async (t) => {
  const { logger, records } = captureLogger('warn');
  const reg = single('<log level="custom" category="INFO"><property name="x" expression="json-eval($.a)"/></log>', {}, logger);
  const m = message('request', { body: 'not json', contentType: 'application/json' });
  reg.run('t', m);
  t.equal(records.length, 0, 'nothing written, and the body was not even built (it would not parse)');
  const silent = single('<log level="full"/>');
  const writes: unknown[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => { writes.push(a); };
  try { silent.run('t', message('request')); } finally { console.log = orig; }
  t.equal(writes.length, 0, 'never the console');
});

// Values are written escaped (a forged line or a terminal escape stays text), credentials masked at every level;
// the text log as an operator reads it is tested against a running gateway in test/security/log-injection.test.ts.
t.test('values are escaped: no line break, no terminal control reaches the line', async (t) => {
  const { logger, records } = captureLogger();
  const reg = single(`<log level="custom"><property name="u" expression="json-eval($.u)"/></log><log level="full"/>`, {}, logger);
  const u = 'bob\n2026-01-01T00:00:00.000Z INFO forged\r\u001b[31m\u009b1m\u2028\u0000';
  reg.run('t', message('request', { body: JSON.stringify({ u }), contentType: 'application/json', headers: [['X-Evil', 'a\u001b]0;title\u0007']], facts: { path: '/p/1.0.0/x\u001b' } }));
  t.equal(records.length, 2);
  t.equal(records[0]!.msg, 'u = bob\\n2026-01-01T00:00:00.000Z INFO forged\\r\\u001b[31m\\u009b1m\\u2028\\u0000');
  // eslint-disable-next-line no-control-regex
  for (const r of records) t.notMatch(r.msg, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/, 'no raw control in the line');
  t.match(records[1]!.msg, /X-Evil: a\\u001b\]0;title\\u0007/, 'header values too');
  t.match(records[1]!.msg, /To: \/p\/1\.0\.0\/x\\u001b/, 'and the path');
});

t.test('credentials are masked at every level: headers, properties that read or are named like one, query keys', async (t) => {
  const { logger, records } = captureLogger();
  const reg = registryOf({ t: seq('t', `<log level="headers"/>
    <log level="custom">
      <property name="c" expression="$trp:Cookie"/>
      <property name="gw" expression="get-property('transport', 'X-Gw-Auth')"/>
      <property name="mix" expression="concat('k=', $trp:x-api-key)"/>
      <property name="Authorization" value="literal"/>
      <property name="fine" expression="$trp:Accept"/>
    </log>`) }, logger, ['X-Gw-Auth']);
  reg.run('t', message('request', {
    facts: { path: '/p/1.0.0/x?apikey=k1&access_token=t1&page=2', method: 'GET' },
    headers: [['Authorization', 'Bearer a1'], ['Proxy-Authorization', 'Basic p1'], ['Cookie', 's=c1'], ['apikey', 'k2'], ['X-API-Key', 'k3'], ['X-Gw-Auth', 'g1'], ['Accept', 'text/plain']],
  }));
  const text = records.map((r) => r.msg).join('\n');
  for (const secret of ['a1', 'p1', 'c1', 'k1', 't1', 'k2', 'k3', 'g1', 'literal']) t.notMatch(text, new RegExp(`\\b${secret}\\b`), `${secret} is not in the log`);
  t.match(text, /Authorization: \*{8}, Proxy-Authorization: \*{8}, Cookie: \*{8}, apikey: \*{8}, X-API-Key: \*{8}, X-Gw-Auth: \*{8}, Accept: text\/plain/);
  t.match(text, /To: \/p\/1\.0\.0\/x\?apikey=\*{8}&access_token=\*{8}&page=2/);
  t.match(text, /c = \*{8}, gw = \*{8}, mix = \*{8}, Authorization = \*{8}, fine = text\/plain/);
});
