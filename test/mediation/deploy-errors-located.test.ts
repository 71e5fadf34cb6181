// Every problem in a sequence file is a SequenceDeployError with file, line and element: never a raw stack.
import t, { type Test } from 'tap';
import { SequenceDeployError, parseSequence } from '../../mediation/index.js';
import { seq } from './fixtures/helpers.js';

function deployError(t: Test, xml: string, file = '/x/bad.xml'): SequenceDeployError {
  try {
    parseSequence(xml, file);
  } catch (err) {
    t.type(err, SequenceDeployError, 'a SequenceDeployError');
    return err as SequenceDeployError;
  }
  t.fail('expected a deploy error');
  throw new Error('unreachable');
}

t.test('malformed XML gives file and line', async (t) => {
  const xml = '<sequence xmlns="http://ws.apache.org/ns/synapse" name="a">\n  <log>\n  <drop/>\n</sequence>\n';
  const e = deployError(t, xml, '/seqs/a.xml');
  t.equal(e.file, '/seqs/a.xml');
  t.equal(e.line, 4, 'the line of the mismatched closing tag');
  t.match(e.message, /^\/seqs\/a\.xml:4(:\d+)?: malformed XML: /);
  t.notMatch(e.message, /\n\s+at /, 'no stack in the message');
});

t.test('an unclosed attribute quote is malformed XML on its line', async (t) => {
  const e = deployError(t, '<sequence name="a">\n\n<property name="x value="1"/>\n</sequence>');
  t.equal(e.line, 3);
});

t.test('an empty file is an error', async (t) => {
  const e = deployError(t, '   \n');
  t.match(e.reason, /empty/);
});

t.test('unknown mediator: line and element', async (t) => {
  const xml = seq('a', '    <log level="custom"/>\n    <class name="org.acme.Mediator"/>\n    <drop/>');
  const e = deployError(t, xml);
  t.equal(e.line, 4, 'the <class> line (after the XML declaration and <sequence>)');
  t.equal(e.element, 'class');
  t.match(e.reason, /unknown mediator <class>/);
});

t.test('an unknown mediator nested in a filter is found at its own line', async (t) => {
  const xml = seq('a', '<filter source="$ctx:X" regex="1">\n<then>\n<enrich/>\n</then>\n</filter>');
  const e = deployError(t, xml);
  t.equal(e.line, 5);
  t.equal(e.element, 'enrich');
});

t.test('the root must be one <sequence> with a name', async (t) => {
  t.match(deployError(t, '<proxy name="p"/>').reason, /root element must be <sequence>/);
  t.match(deployError(t, '<sequence xmlns="http://ws.apache.org/ns/synapse"><drop/></sequence>').reason, /missing required attribute name/);
  const two = deployError(t, '<sequence name="a"/>\n<sequence name="b"/>');
  t.match(two.reason, /exactly one root element/);
  t.equal(two.line, 2);
});

t.test('missing required attributes', async (t) => {
  const cases: [string, RegExp, string][] = [
    ['<property value="1"/>', /missing required attribute name/, 'property'],
    ['<property name="x"/>', /missing required attribute value or expression/, 'property'],
    ['<header value="1"/>', /missing required attribute name/, 'header'],
    ['<filter regex="a"><drop/></filter>', /missing required attribute source/, 'filter'],
    ['<filter source="$ctx:a"><drop/></filter>', /missing required attribute regex/, 'filter'],
    ['<sequence/>', /missing required attribute key/, 'sequence'],
    ['<payloadFactory media-type="json"><args/></payloadFactory>', /missing required child <format>/, 'payloadFactory'],
    ['<payloadFactory media-type="json"><format>{}</format><args><arg/></args></payloadFactory>', /value or expression/, 'arg'],
    ['<makefault><reason value="r"/></makefault>', /<code/, 'makefault'],
    ['<makefault version="soap11"><code value="soap11Env:Client"/></makefault>', /<reason/, 'makefault'],
    ['<log><property value="1"/></log>', /missing required attribute name/, 'property'],
    ['<switch><case regex="a"/></switch>', /missing required attribute source/, 'switch'],
  ];
  for (const [body, re, element] of cases) {
    const e = deployError(t, seq('a', body));
    t.match(e.reason, re, body);
    t.equal(e.element, element, `${body}: element`);
    t.equal(e.line, 3, `${body}: line`);
  }
});

t.test('a bad regex in filter or switch', async (t) => {
  const e = deployError(t, seq('a', '<filter source="$ctx:ERROR_CODE" regex="9009(01"><drop/></filter>'));
  t.equal(e.element, 'filter');
  t.match(e.reason, /regex "9009\(01" is not valid/);
  const s = deployError(t, seq('a', '<switch source="$ctx:a">\n<case regex="[a"><drop/></case>\n</switch>'));
  t.equal(s.element, 'case');
  t.equal(s.line, 4);
});

t.test('a bad or unsupported scope', async (t) => {
  t.match(deployError(t, seq('a', '<property name="x" value="1" scope="galaxy"/>')).reason, /scope "galaxy" is unknown/);
  t.match(deployError(t, seq('a', '<property name="x" value="1" scope="registry"/>')).reason, /scope "registry" is not supported/);
  t.match(deployError(t, seq('a', '<header name="x" value="1" scope="axis2"/>')).reason, /scope "axis2" is not supported/);
});

t.test('unknown or ill-formed expressions name the expression', async (t) => {
  const cases: [string, RegExp][] = [
    ['//order/id', /unsupported expression "\/\/order\/id"/],
    ['get-property(\'registry\', \'conf:/x\')', /scope 'registry' is not supported/],
    ['$body', /\$body is not supported/],
    ['$url:id', /\$url: is not supported/],
    ['json-eval($..price)', /deep scan/],
    ['json-eval($.items[*])', /\[\*\]/],
    ['json-eval($.a', /not closed/],
    ['get-property(\'A\'', /expected "\)"/],
    ['substring-before($ctx:a, \'x\')', /function substring-before\(\) is not supported/],
    ['$ctx:a > 3', /ordering comparisons/],
    ['$.a.b', /json-eval/],
    ['\'unterminated', /unterminated string literal/],
  ];
  for (const [expr, re] of cases) {
    const e = deployError(t, seq('a', `<property name="x" expression="${expr.replace(/"/g, '&quot;')}"/>`));
    t.match(e.reason, re, expr);
    t.match(e.reason, /^expression: unsupported expression "/, `${expr}: names the expression`);
    t.equal(e.element, 'property');
  }
  const f = deployError(t, seq('a', '<filter xpath="count(//a) = 1"><drop/></filter>'));
  t.match(f.reason, /^xpath: unsupported expression "count\(\/\/a\) = 1"/);
});

t.test('payloadFactory: a $n without its arg, an element in a JSON format, a bad media type', async (t) => {
  const e = deployError(t, seq('a', '<payloadFactory media-type="json">\n<format>{"a":"$1","b":$2}</format>\n<args><arg value="x"/></args>\n</payloadFactory>'));
  t.equal(e.element, 'format');
  t.equal(e.line, 4);
  t.match(e.reason, /\$2 has no matching <arg> \(1 given\)/);
  t.match(deployError(t, seq('a', '<payloadFactory media-type="json"><format><a>$1</a></format></payloadFactory>')).reason, /CDATA/);
  t.match(deployError(t, seq('a', '<payloadFactory media-type="yaml"><format>x</format></payloadFactory>')).reason, /media-type must be json, xml or text/);
  t.match(deployError(t, seq('a', '<payloadFactory><format key="conf:/f.xml"/></payloadFactory>')).reason, /registry/);
});

t.test('what is not supported is said at deploy time', async (t) => {
  t.match(deployError(t, seq('a', '<send><endpoint><address uri="http://x"/></endpoint></send>')).reason, /<send> with an endpoint is not supported/);
  t.match(deployError(t, seq('a', '<sequence key="{get-property(\'x\')}"/>')).reason, /dynamic and registry keys are not supported/);
  t.match(deployError(t, seq('a', '<property name="x" value="1" type="OM"/>')).reason, /type OM is not supported/);
  t.match(deployError(t, seq('a', '<property name="x" value="1.5" type="INTEGER"/>')).reason, /not an integer/);
  t.match(deployError(t, seq('a', '<filter source="$ctx:a" regex="1" xpath="$ctx:b"><drop/></filter>')).reason, /not both/);
  t.match(deployError(t, seq('a', '<filter source="$ctx:a" regex="1"><then><drop/></then><log/></filter>')).reason, /beside <then>\/<else>/);
  t.match(deployError(t, seq('a', '<property name="x" value="1" expression="$ctx:y"/>')).reason, /not both/);
  t.match(deployError(t, seq('a', '<drop><log/></drop>')).reason, /takes no child element/);
  t.match(deployError(t, seq('a', '<log level="loud"/>')).reason, /level must be one of/);
  t.match(deployError(t, seq('a', '<log category="NOISE"/>')).reason, /category must be one of/);
});
