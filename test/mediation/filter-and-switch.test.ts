// filter (source + regex as a whole-string match, or an xpath condition; then/else or direct children) and switch.
import t from 'tap';
import { Outcome } from '../../mediation/index.js';
import { message, single } from './fixtures/helpers.js';

t.test('source + regex matches the whole string, like the reference\'s Matcher.matches()', async (t) => {
  const reg = single(`<filter source="get-property('ERROR_CODE')" regex="90090[12]">
      <then><property name="r" value="then"/></then>
      <else><property name="r" value="else"/></else>
    </filter>`);
  const run = (code: string): unknown => { const m = message('fault', { properties: [['ERROR_CODE', code]] }); reg.run('t', m); return m.properties.get('r'); };
  t.equal(run('900901'), 'then');
  t.equal(run('900902'), 'then');
  t.equal(run('9009011'), 'else', 'a partial match is no match');
  t.equal(run('x900901'), 'else');
  t.equal(run(''), 'else');
});

t.test('direct children mean then; an absent source value is the empty string', async (t) => {
  const reg = single('<filter source="$ctx:missing" regex=".*"><property name="r" value="ran"/><respond/></filter><property name="after" value="x"/>');
  const m = message('request');
  t.equal(reg.run('t', m), Outcome.RESPOND, 'the outcome of the branch ends the sequence');
  t.equal(m.properties.get('r'), 'ran');
  t.notOk(m.properties.has('after'));
});

t.test('(?i) becomes a case-insensitive match', async (t) => {
  const reg = single('<filter source="$trp:X-Flag" regex="(?i)true"><property name="r" value="y"/></filter>');
  const m = message('request', { headers: [['x-flag', 'TRUE']] });
  reg.run('t', m);
  t.equal(m.properties.get('r'), 'y');
});

t.test('xpath conditions: comparisons, and/or/not, boolean(), truthiness of a string', async (t) => {
  const cases: [string, boolean][] = [
    ["$ctx:code = '900901'", true],
    ["$ctx:code != '900901'", false],
    ['$ctx:code = 900901', true],
    ['$ctx:code = 900901.0', true],
    ["get-property('axis2', 'HTTP_SC') = 401 and $ctx:code = '900901'", true],
    ["$ctx:code = '1' or $trp:X-A = 'a'", true],
    ["not($ctx:code = '900901')", false],
    ['boolean($ctx:missing)', false],
    ['$ctx:code', true],
    ['$ctx:empty', false],
    ["$ctx:missing = ''", true],
    ['true()', true],
    ["false() or ($ctx:code = '900901' and not(false()))", true],
    ["concat($ctx:code, '-', $trp:X-A) = '900901-a'", true],
  ];
  for (const [xpath, expected] of cases) {
    const reg = single(`<filter xpath="${xpath.replace(/'/g, '&apos;')}"><then><property name="r" value="1"/></then><else><property name="r" value="0"/></else></filter>`);
    const m = message('fault', { properties: [['code', '900901'], ['empty', '']], axis2: [['HTTP_SC', 401]], headers: [['X-A', 'a']] });
    reg.run('t', m);
    t.equal(m.properties.get('r'), expected ? '1' : '0', xpath);
  }
});

t.test('nested filters', async (t) => {
  const reg = single(`<filter source="$ctx:a" regex="1"><then>
      <filter source="$ctx:b" regex="2"><then><property name="r" value="both"/></then><else><property name="r" value="a only"/></else></filter>
    </then></filter>`);
  const m = message('request', { properties: [['a', '1'], ['b', '3']] });
  reg.run('t', m);
  t.equal(m.properties.get('r'), 'a only');
});

t.test('switch: the first matching case, else default', async (t) => {
  const reg = single(`<switch source="$axis2:HTTP_SC">
      <case regex="4[0-9][0-9]"><property name="r" value="client"/></case>
      <case regex="401"><property name="r" value="never: an earlier case matched"/></case>
      <case regex="5.."><property name="r" value="server"/></case>
      <default><property name="r" value="other"/></default>
    </switch>`);
  const run = (sc: number): unknown => { const m = message('fault', { axis2: [['HTTP_SC', sc]] }); reg.run('t', m); return m.properties.get('r'); };
  t.equal(run(401), 'client');
  t.equal(run(503), 'server');
  t.equal(run(302), 'other');
});
