// Compiled once, run many times: 10 000 calls through a compiled sequence and 10 000 fault renderings never
// parse XML (neither the sequence parser nor fast-xml-parser is called) and give the same answer each time.
import t from 'tap';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MediationMessage, Outcome, SequenceRegistry, renderFault, sequenceParseCount } from '../../mediation/index.js';
import { json, registryOf, seq } from './fixtures/helpers.js';

t.test('10 000 runs of a compiled sequence and of renderFault, no XML parsing', async (t) => {
  const registry = registryOf({
    inseq: seq('inseq', `
      <property name="api" expression="get-property('api.ut.api')"/>
      <header name="X-Api" expression="$ctx:api" scope="transport"/>
      <filter source="json-eval($.order.kind)" regex="pizza|pasta">
        <then>
          <payloadFactory media-type="json">
            <format>{"item":"$1","qty":$2,"by":"$3"}</format>
            <args>
              <arg evaluator="json" expression="$.order.name"/>
              <arg expression="json-eval($.order.qty)"/>
              <arg expression="$trp:X-User"/>
            </args>
          </payloadFactory>
        </then>
        <else><respond/></else>
      </filter>`),
  });
  const shipped = SequenceRegistry.builtins();

  const parses = { sequence: sequenceParseCount(), xml: 0, validate: 0 };
  const origParse = XMLParser.prototype.parse;
  XMLParser.prototype.parse = function (this: XMLParser, ...args: Parameters<typeof origParse>) { parses.xml++; return origParse.apply(this, args); };
  const validator = XMLValidator as { validate: typeof XMLValidator.validate };
  const origValidate = validator.validate;
  try {
    validator.validate = (...args: Parameters<typeof origValidate>) => { parses.validate++; return origValidate(...args); };
  } catch {
    // ESM namespace objects are frozen; XMLParser.prototype.parse is the parser's entry point anyway.
  }
  try {
    const inseq = registry.get('inseq')!;
    for (let i = 0; i < 10_000; i++) {
      const m = new MediationMessage('request', { apiName: 'PizzaShackAPI' }, {
        headers: [['X-User', `u"${i}`]],
        body: Buffer.from(`{"order":{"kind":"pizza","name":"margherita","qty":${i}}}`),
        contentType: 'application/json',
      });
      const outcome = inseq(m);
      if (outcome !== Outcome.CONTINUE || i % 2500 === 0) {
        t.equal(outcome, Outcome.CONTINUE, `run ${i}`);
        t.same(json(m.body), { item: 'margherita', qty: i, by: `u"${i}` }, `run ${i}: body`);
        t.equal(m.headers.get('x-api'), 'PizzaShackAPI', `run ${i}: header`);
      }
    }
    for (let i = 0; i < 10_000; i++) {
      const res = renderFault(shipped, { code: i % 2 ? 900901 : 900800 });
      if (i % 2500 === 0 || res.status !== (i % 2 ? 401 : 429)) t.equal(res.status, i % 2 ? 401 : 429, `fault ${i}`);
    }
  } finally {
    XMLParser.prototype.parse = origParse;
    try { validator.validate = origValidate; } catch { /* frozen, never replaced */ }
  }
  t.equal(sequenceParseCount(), parses.sequence, 'parseSequence never called at run time');
  t.equal(parses.xml, 0, 'fast-xml-parser never called at run time');
  t.equal(parses.validate, 0, 'the XML validator never called at run time');
});

t.test('the counting is real: deploying does parse', async (t) => {
  const before = sequenceParseCount();
  let xml = 0;
  const origParse = XMLParser.prototype.parse;
  XMLParser.prototype.parse = function (this: XMLParser, ...args: Parameters<typeof origParse>) { xml++; return origParse.apply(this, args); };
  try {
    registryOf({ a: seq('a', '<drop/>') });
  } finally {
    XMLParser.prototype.parse = origParse;
  }
  t.equal(sequenceParseCount(), before + 1);
  t.equal(xml, 1);
});
