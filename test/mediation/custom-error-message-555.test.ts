// Seed 000, "Custom error messages", end to end at the mediation level: a custom sequence file deployed on
// addition (with a log line), a handler calling it by key followed by drop, and a fault that then comes out
// with status 555, code 900901 and description "Invalid Credentials".
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SequenceRegistry, SequenceRepository, renderFault } from '../../mediation/index.js';
import { captureLogger, copyShipped, json, tmpDir } from './fixtures/helpers.js';

const CUSTOM = `<?xml version="1.0" encoding="UTF-8"?>
<sequence xmlns="http://ws.apache.org/ns/synapse" name="acme_custom_auth_error">
    <payloadFactory media-type="json">
        <format>{"fault":{"code":$1,"type":"Status report","message":"Runtime Error","description":"$2"}}</format>
        <args>
            <arg evaluator="xml" expression="$ctx:ERROR_CODE"/>
            <arg evaluator="xml" expression="$ctx:ERROR_MESSAGE"/>
        </args>
    </payloadFactory>
    <property name="RESPONSE" value="true"/>
    <header name="To" action="remove"/>
    <property name="HTTP_SC" value="555" scope="axis2"/>
    <property name="NO_ENTITY_BODY" scope="axis2" action="remove"/>
    <property name="ContentType" scope="axis2" action="remove"/>
    <property name="Authorization" scope="transport" action="remove"/>
    <property name="Access-Control-Allow-Origin" value="*" scope="transport"/>
    <header name="X-Acme-Error" expression="$ctx:ERROR_CODE" scope="transport"/>
    <property name="messageType" value="application/json" scope="axis2"/>
    <send/>
</sequence>
`;

const HANDLER = `<?xml version="1.0" encoding="UTF-8"?>
<sequence xmlns="http://ws.apache.org/ns/synapse" name="_auth_failure_handler_">
    <sequence key="acme_custom_auth_error"/>
    <drop/>
</sequence>
`;

t.test('the four steps of seed 000 give status 555 with code 900901 and description Invalid Credentials', async (t) => {
  const dir = tmpDir(t);
  copyShipped(dir);
  const { logger, messages } = captureLogger();
  const repo = new SequenceRepository({ dir, logger });
  repo.rescan();
  const before = SequenceRegistry.compile(repo.snapshot(), { logger });
  t.equal(renderFault(before, { code: 900901 }).status, 401, 'the shipped handler first');

  // 1. Create the sequence file: deployed on addition, and the log says so.
  fs.writeFileSync(path.join(dir, 'acme_custom_auth_error.xml'), CUSTOM);
  t.ok(repo.rescan(), 'the set changed');
  t.ok(messages().includes(`sequence deployed: acme_custom_auth_error (${path.join(dir, 'acme_custom_auth_error.xml')})`));

  // 3. Reference it by key from _auth_failure_handler_, followed by a drop.
  fs.writeFileSync(path.join(dir, '_auth_failure_handler_.xml'), HANDLER);
  t.ok(repo.rescan());
  t.ok(messages().includes(`sequence deployed: _auth_failure_handler_ (${path.join(dir, '_auth_failure_handler_.xml')})`));
  t.same(repo.errors(), []);

  // 4. An invocation that triggers the fault returns the chosen status and body.
  const registry = SequenceRegistry.compile(repo.snapshot(), { logger });
  const res = renderFault(registry, { code: 900901 }, { apiName: 'PizzaShackAPI', apiVersion: '1.0.0', method: 'GET' });
  t.equal(res.status, 555);
  t.equal(res.renderedBy, '_auth_failure_handler_');
  t.same(json(res.body), { fault: { code: 900901, type: 'Status report', message: 'Runtime Error', description: 'Invalid Credentials' } });
  t.same(res.headers, [['Access-Control-Allow-Origin', '*'], ['X-Acme-Error', '900901'], ['Content-Type', 'application/json']]);

  // Other auth codes go the same way; throttling is untouched.
  const missing = renderFault(registry, { code: 900902 });
  t.equal(missing.status, 555);
  t.equal((json(missing.body) as { fault: { description: string } }).fault.description, 'Missing Credentials');
  t.equal(renderFault(registry, { code: 900800 }).status, 429);
});

t.test('the reference documentation\'s convert.xml (XML payload, messageType JSON) gives the documented body', async (t) => {
  const dir = tmpDir(t);
  copyShipped(dir);
  fs.writeFileSync(path.join(dir, 'convert.xml'), `<sequence xmlns="http://ws.apache.org/ns/synapse" name="convert">
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
    </payloadFactory>
    <property name="RESPONSE" value="true"/>
    <header name="To" action="remove"/>
    <property name="HTTP_SC" value="555" scope="axis2"/>
    <property name="NO_ENTITY_BODY" scope="axis2" action="remove"/>
    <property name="ContentType" scope="axis2" action="remove"/>
    <property name="Authorization" scope="transport" action="remove"/>
    <property name="Access-Control-Allow-Origin" value="*" scope="transport"/>
    <property name="Host" scope="transport" action="remove"/>
    <property name="Accept" scope="transport" action="remove"/>
    <property name="X-JWT-Assertion" scope="transport" action="remove"/>
    <property name="messageType" value="application/json" scope="axis2"/>
    <send/>
</sequence>`);
  fs.writeFileSync(path.join(dir, '_auth_failure_handler_.xml'), `<sequence name="_auth_failure_handler_" xmlns="http://ws.apache.org/ns/synapse">
    <property name="error_message_type" value="application/json"/>
    <sequence key="convert"/>
    <drop/>
</sequence>`);
  const { logger } = captureLogger();
  const repo = new SequenceRepository({ dir, logger });
  repo.rescan();
  t.same(repo.errors(), []);
  const res = renderFault(SequenceRegistry.compile(repo.snapshot()), { code: 900901 });
  t.equal(res.status, 555);
  t.equal(res.body!.toString(), '{"fault":{"code":900901,"type":"Status report","message":"Runtime Error","description":"Invalid Credentials"}}');
  t.same(res.headers, [['Access-Control-Allow-Origin', '*'], ['Content-Type', 'application/json']]);
});
