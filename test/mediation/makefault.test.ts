// makefault (simple): SOAP 1.1, SOAP 1.2 and POX faults with code, reason (value or expression) and detail.
import t from 'tap';
import { message, single } from './fixtures/helpers.js';

t.test('SOAP 1.1 fault', async (t) => {
  const reg = single(`<makefault version="soap11">
      <code xmlns:soap11Env="http://schemas.xmlsoap.org/soap/envelope/" value="soap11Env:Client"/>
      <reason expression="get-property('ERROR_MESSAGE')"/>
    </makefault><send/>`);
  const m = message('fault', { properties: [['ERROR_MESSAGE', 'bad <input> & more']] });
  reg.run('t', m);
  const res = m.toResponse(500);
  t.equal(res.status, 500);
  t.same(res.headers, [['Content-Type', 'text/xml']]);
  t.equal(res.body!.toString(), '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault>'
    + '<faultcode>soapenv:Client</faultcode><faultstring>bad &lt;input&gt; &amp; more</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>');
});

t.test('SOAP 1.2 fault with a detail; an HTTP_SC already set is kept', async (t) => {
  const reg = single(`<makefault version="soap12"><code value="soap12Env:Receiver"/><reason value="Boom"/><detail expression="$ctx:d"/></makefault>`);
  const m = message('fault', { properties: [['d', 'x<y']], axis2: [['HTTP_SC', 502]] });
  reg.run('t', m);
  const res = m.toResponse(500);
  t.equal(res.status, 502);
  t.same(res.headers, [['Content-Type', 'application/soap+xml']]);
  t.match(res.body!.toString(), /<soapenv:Code><soapenv:Value>soapenv:Receiver<\/soapenv:Value><\/soapenv:Code><soapenv:Reason><soapenv:Text xml:lang="en">Boom<\/soapenv:Text><\/soapenv:Reason><soapenv:Detail>x&lt;y<\/soapenv:Detail>/);
});

t.test('POX fault with XML detail, converted to JSON by messageType', async (t) => {
  const reg = single(`<makefault version="pox"><reason value="Denied"/><detail><code>42</code></detail></makefault>
    <property name="messageType" value="application/json" scope="axis2"/>`);
  const m = message('fault');
  reg.run('t', m);
  t.equal(m.toResponse(500).body!.toString(), '{"Exception":{"detail":{"code":42},"$":"Denied"}}');
});
