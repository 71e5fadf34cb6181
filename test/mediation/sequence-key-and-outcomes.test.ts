// sequence key (outcome propagates), respond / send / drop / loopback by direction, in / out, onError.
import t from 'tap';
import { MediationRuntimeError, Outcome, outcomeName } from '../../mediation/index.js';
import { message, registryOf, seq, single } from './fixtures/helpers.js';

t.test('a called sequence runs on the same message; CONTINUE returns to the caller', async (t) => {
  const reg = single('<property name="a" value="1"/><sequence key="helper"/><property name="c" expression="$ctx:b"/>', {
    helper: '<property name="b" value="from helper"/>',
  });
  const m = message('request');
  t.equal(reg.run('t', m), Outcome.CONTINUE);
  t.equal(m.properties.get('c'), 'from helper');
});

t.test('a terminal outcome of a called sequence ends the caller: send then the caller\'s drop never runs', async (t) => {
  const reg = single('<sequence key="sender"/><drop/>', { sender: '<send/>' });
  t.equal(outcomeName(reg.run('t', message('fault'))), 'SEND');
  const dropper = single('<sequence key="d"/><property name="after" value="x"/>', { d: '<drop/>' });
  const m = message('request');
  t.equal(dropper.run('t', m), Outcome.DROP);
  t.notOk(m.properties.has('after'));
});

t.test('respond, send, drop, loopback', async (t) => {
  for (const dir of ['request', 'response', 'fault'] as const) {
    t.equal(single('<respond/>').run('t', message(dir)), Outcome.RESPOND, `respond in ${dir}`);
    t.equal(single('<send/>').run('t', message(dir)), Outcome.SEND, `send in ${dir}`);
    t.equal(single('<drop/><respond/>').run('t', message(dir)), Outcome.DROP, `drop in ${dir}`);
    t.equal(single('<loopback/>').run('t', message(dir)), Outcome.RESPOND, `loopback in ${dir}`);
  }
  t.equal(single('<property name="RESPONSE" value="true"/><send/>').run('t', message('request')), Outcome.RESPOND,
    'RESPONSE=true turns a request-flow send back to the client');
  t.equal(single('').run('t', message('request')), Outcome.CONTINUE, 'an empty sequence continues');
});

t.test('in runs in request and fault flows, out in response flows', async (t) => {
  const reg = single('<in><property name="r" value="in"/></in><out><property name="r" value="out"/></out>');
  for (const [dir, want] of [['request', 'in'], ['fault', 'in'], ['response', 'out']] as const) {
    const m = message(dir);
    reg.run('t', m);
    t.equal(m.properties.get('r'), want, dir);
  }
});

t.test('onError: a failing mediator runs the named sequence with ERROR_MESSAGE and ERROR_DETAIL', async (t) => {
  const reg = single('<property name="n" expression="$ctx:x" type="INTEGER"/>');
  const withHandler = registryOf({
    t: seq('t', '<property name="n" expression="$ctx:x" type="INTEGER"/>', ' onError="onerr"'),
    onerr: seq('onerr', '<property name="handled" expression="$ctx:ERROR_MESSAGE"/><respond/>'),
  });
  const m = message('request', { properties: [['x', 'abc']] });
  t.equal(withHandler.run('t', m), Outcome.RESPOND);
  t.match(String(m.properties.get('handled')), /"abc" is not an integer/);
  t.match(String(m.properties.get('ERROR_DETAIL')), /sequence t, line 3, <property>/);
  t.equal(m.properties.get('ERROR_EXCEPTION'), 'MediationRuntimeError');
  t.throws(() => reg.run('t', message('request', { properties: [['x', 'abc']] })), MediationRuntimeError, 'without onError the error reaches the caller');
});
