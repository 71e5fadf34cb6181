// property: set and remove in the default, axis2 and transport scopes; value or expression; types.
import t from 'tap';
import { MediationRuntimeError, Outcome } from '../../mediation/index.js';
import { message, single } from './fixtures/helpers.js';

t.test('set in each scope, from a value and from an expression', async (t) => {
  const reg = single(`
    <property name="plain" value="hello"/>
    <property name="HTTP_SC" value="418" scope="axis2"/>
    <property name="X-Trace" value="abc" scope="transport"/>
    <property name="copied" expression="$trp:x-trace"/>
    <property name="code" expression="get-property('ERROR_CODE')" scope="axis2"/>`);
  const m = message('fault', { properties: [['ERROR_CODE', 900901]] });
  t.equal(reg.run('t', m), Outcome.CONTINUE);
  t.equal(m.properties.get('plain'), 'hello');
  t.equal(m.axis2.get('HTTP_SC'), '418');
  t.equal(m.headers.get('x-trace'), 'abc', 'transport scope writes a header (case-insensitive read)');
  t.same(m.headers.entries(), [['X-Trace', 'abc']], 'the header keeps the case it was set with');
  t.equal(m.properties.get('copied'), 'abc');
  t.equal(m.axis2.get('code'), '900901');
  t.equal(m.status(0), 418);
});

t.test('remove in each scope; removing TRANSPORT_HEADERS clears every header', async (t) => {
  const reg = single(`
    <property name="gone" action="remove"/>
    <property name="NO_ENTITY_BODY" scope="axis2" action="remove"/>
    <property name="Authorization" scope="transport" action="remove"/>`);
  const m = message('request', {
    properties: [['gone', 'x'], ['kept', 'y']],
    axis2: [['NO_ENTITY_BODY', true]],
    headers: [['authorization', 'Bearer secret'], ['Accept', 'application/json']],
  });
  reg.run('t', m);
  t.notOk(m.properties.has('gone'));
  t.equal(m.properties.get('kept'), 'y');
  t.notOk(m.axis2.has('NO_ENTITY_BODY'));
  t.same(m.headers.entries(), [['Accept', 'application/json']]);

  const clear = single('<property name="TRANSPORT_HEADERS" scope="axis2" action="remove"/>');
  const m2 = message('request', { headers: [['A', '1'], ['B', '2']] });
  clear.run('t', m2);
  t.equal(m2.headers.size, 0);
});

t.test('types convert values; a bad number from an expression fails at run time with the line', async (t) => {
  const reg = single(`
    <property name="i" value=" 42 " type="INTEGER"/>
    <property name="d" value="2.5" type="DOUBLE"/>
    <property name="b" value="TRUE" type="BOOLEAN"/>
    <property name="f" value="yes" type="BOOLEAN"/>
    <property name="s" value="007"/>
    <property name="n" expression="$ctx:input" type="LONG"/>`);
  const m = message('request', { properties: [['input', '12']] });
  reg.run('t', m);
  t.equal(m.properties.get('i'), 42);
  t.equal(m.properties.get('d'), 2.5);
  t.equal(m.properties.get('b'), true);
  t.equal(m.properties.get('f'), false);
  t.equal(m.properties.get('s'), '007');
  t.equal(m.properties.get('n'), 12);

  const bad = message('request', { properties: [['input', 'twelve']] });
  const err = t.throws(() => reg.run('t', bad)) as unknown as MediationRuntimeError;
  t.type(err, MediationRuntimeError);
  t.equal(err.sequence, 't');
  t.equal(err.line, 9, 'the line of the failing <property>');
  t.match(err.reason, /"twelve" is not an integer/);
});

t.test('an expression with no value leaves the property unset', async (t) => {
  const reg = single('<property name="x" expression="$ctx:missing"/><property name="X-H" expression="$ctx:missing" scope="transport"/>');
  const m = message('request', { properties: [['x', 'before']], headers: [['X-H', 'before']] });
  reg.run('t', m);
  t.notOk(m.properties.has('x'));
  t.notOk(m.headers.has('X-H'));
});
