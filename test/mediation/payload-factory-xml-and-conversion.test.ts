// payloadFactory media-type xml: args XML-escaped, XML values inserted as XML, and the reference's implicit
// conversion when messageType differs from the payload (seed 000's custom error example builds XML and sends JSON).
import t from 'tap';
import { json, message, single } from './fixtures/helpers.js';

const REFERENCE_CONVERT = `
    <payloadFactory media-type="xml">
        <format>
            <am:fault xmlns:am="http://wso2.org/apimanager">
                <am:code>$1</am:code>
                <am:type>Status report</am:type>
                <am:message>Runtime Error</am:message>
                <am:description>$2</am:description>
            </am:fault>
        </format>
        <args>
            <arg evaluator="xml" expression="$ctx:ERROR_CODE"/>
            <arg evaluator="xml" expression="$ctx:ERROR_MESSAGE"/>
        </args>
    </payloadFactory>`;

t.test('the reference documentation\'s XML fault, sent as application/json, gives the documented JSON', async (t) => {
  const reg = single(`${REFERENCE_CONVERT}
    <property name="HTTP_SC" value="555" scope="axis2"/>
    <property name="messageType" value="application/json" scope="axis2"/>
    <send/>`);
  const m = message('fault', { properties: [['ERROR_CODE', 900901], ['ERROR_MESSAGE', 'Invalid Credentials']] });
  reg.run('t', m);
  const res = m.toResponse(500);
  t.equal(res.status, 555);
  t.same(res.headers, [['Content-Type', 'application/json']]);
  t.equal(res.body!.toString(), '{"fault":{"code":900901,"type":"Status report","message":"Runtime Error","description":"Invalid Credentials"}}',
    'the body documented for the 555 example, code as a number');
});

t.test('string args are XML-escaped; XML args are inserted as XML; JSON args become XML', async (t) => {
  const reg = single(`<payloadFactory media-type="xml"><format><r><s>$1</s><x>$2</x><j>$3</j><v>$4</v></r></format><args>
    <arg expression="$ctx:s"/><arg expression="$ctx:x"/><arg evaluator="json" expression="$.a"/><arg value="a&amp;b"/></args></payloadFactory>`);
  const m = message('request', {
    properties: [['s', '<not xml & "quoted"'], ['x', '<item id="1">one</item>']],
    body: '{"a":{"k":"v","n":[1,2]}}',
    contentType: 'application/json',
  });
  reg.run('t', m);
  t.equal(m.body!.toString(), '<r><s>&lt;not xml &amp; &quot;quoted&quot;</s><x><item id="1">one</item></x><j><k>v</k><n>1</n><n>2</n></j><v>a&amp;b</v></r>');
  t.equal(m.contentType, 'application/xml');
  t.equal(m.axis2.get('messageType'), 'application/xml');
});

t.test('an XML payload keeps an xml-family messageType already chosen; a SOAP format is typed as SOAP', async (t) => {
  const keep = single('<property name="messageType" value="text/xml" scope="axis2"/><payloadFactory><format><a>1</a></format></payloadFactory>');
  const m = message('request');
  keep.run('t', m);
  t.equal(m.axis2.get('messageType'), 'text/xml');
  const res = m.toResponse(200);
  t.equal(res.body!.toString(), '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><a>1</a></soapenv:Body></soapenv:Envelope>',
    'sent as text/xml, the POX payload goes in a SOAP 1.1 envelope');

  const soap = single(`<payloadFactory media-type="xml"><format><soapenv:Envelope xmlns:soapenv="http://www.w3.org/2003/05/soap-envelope"><soapenv:Body><b>$1</b></soapenv:Body></soapenv:Envelope></format>
    <args><arg value="2"/></args></payloadFactory>`);
  const m2 = message('request');
  soap.run('t', m2);
  t.equal(m2.axis2.get('messageType'), 'application/soap+xml');
  const res2 = m2.toResponse(200);
  t.same(res2.headers, [['Content-Type', 'application/soap+xml']]);
  t.match(res2.body!.toString(), /^<soapenv:Envelope xmlns:soapenv="http:\/\/www.w3.org\/2003\/05\/soap-envelope"><soapenv:Body><b>2<\/b>/);
});

t.test('a JSON payload sent as application/xml is converted the reference way', async (t) => {
  const reg = single(`<payloadFactory media-type="json"><format>{"fault":{"code":$1,"list":[1,2],"none":null}}</format><args><arg value="7"/></args></payloadFactory>
    <property name="messageType" value="application/xml" scope="axis2"/>`);
  const m = message('fault');
  reg.run('t', m);
  const res = m.toResponse(500);
  t.equal(res.body!.toString(), '<jsonObject><fault><code>7</code><list>1</list><list>2</list><none/></fault></jsonObject>');
  t.same(res.headers, [['Content-Type', 'application/xml']]);
});

t.test('NO_ENTITY_BODY sends no body', async (t) => {
  const reg = single('<payloadFactory media-type="json"><format>{}</format></payloadFactory><property name="NO_ENTITY_BODY" value="true" scope="axis2" type="BOOLEAN"/>');
  const m = message('response');
  reg.run('t', m);
  const res = m.toResponse(200);
  t.equal(res.body, null);
  t.same(res.headers, [], 'no Content-Type without a body');
});

t.test('xml-to-json keeps leading-zero numbers as text and honours a disable regex', async (t) => {
  const reg = single(`<payloadFactory media-type="xml"><format><r><a>007</a><b>12</b><c>true</c><d/><e x="1">t</e><f>1</f><f>2</f></r></format></payloadFactory>
    <property name="messageType" value="application/json" scope="axis2"/>`);
  const m = message('fault');
  reg.run('t', m);
  t.same(json(m.toResponse(500).body), { r: { a: '007', b: 12, c: true, d: null, e: { '@x': 1, $: 't' }, f: [1, 2] } });
});
