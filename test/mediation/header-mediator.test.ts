// header: set and remove transport headers; WS-Addressing names in the default scope are accepted no-ops.
import t from 'tap';
import { message, single } from './fixtures/helpers.js';

t.test('set from a value and an expression, remove, case-insensitive', async (t) => {
  const reg = single(`
    <header name="X-Api" expression="get-property('api.ut.api')" scope="transport"/>
    <header name="X-Fixed" value="1"/>
    <header name="x-remove-me" action="remove" scope="transport"/>
    <header name="X-Fixed" value="2" scope="transport"/>`);
  const m = message('request', { facts: { apiName: 'PizzaShackAPI' }, headers: [['X-Remove-Me', 'x'], ['Host', 'h']] });
  reg.run('t', m);
  t.same(m.headers.entries(), [['Host', 'h'], ['X-Api', 'PizzaShackAPI'], ['X-Fixed', '2']]);
});

t.test('To, Action and the other addressing headers have no effect in the default scope', async (t) => {
  const reg = single('<header name="To" action="remove"/><header name="Action" value="urn:x"/>');
  const m = message('fault', { headers: [['To', 'kept']] });
  reg.run('t', m);
  t.same(m.headers.entries(), [['To', 'kept']]);
  const trp = single('<header name="To" action="remove" scope="transport"/>');
  trp.run('t', m);
  t.equal(m.headers.size, 0, 'in the transport scope, To is an HTTP header like any other');
});
