// log: writes through the logger it is given (never the console), at the category's level, with its properties.
import t from 'tap';
import { captureLogger, message, single } from './fixtures/helpers.js';

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
