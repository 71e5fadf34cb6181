// The AST is plain data: it survives structured clone (postMessage to a real worker thread), keeps its line
// numbers, and compiles there to the same behaviour.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { SequenceRepository, parseSequence } from '../../mediation/index.js';
import { captureLogger, copyShipped, seq, tmpDir } from './fixtures/helpers.js';

t.test('an AST equals its structured clone and JSON round trip, and carries element lines', async (t) => {
  const ast = parseSequence(seq('a', `
    <property name="x" expression="json-eval($.a[0].b)"/>
    <filter xpath="$ctx:x = 'y' and not($trp:X-A = '')">
      <then><payloadFactory media-type="json"><format>{"a":"$1"}</format><args><arg expression="$ctx:x"/></args></payloadFactory></then>
      <else><drop/></else>
    </filter>`), '/s/a.xml');
  t.same(structuredClone(ast), ast);
  t.same(JSON.parse(JSON.stringify(ast)), ast);
  t.equal(ast.line, 2);
  t.equal(ast.body[0]!.line, 4);
  t.equal(ast.body[1]!.line, 5);
  const filter = ast.body[1]!;
  if (filter.kind !== 'filter') throw new Error('expected a filter');
  t.equal(filter.then[0]!.line, 6);
  t.equal(filter.else[0]!.line, 7);
});

t.test('a set posted to a worker thread compiles and renders there', async (t) => {
  const dir = tmpDir(t);
  copyShipped(dir);
  fs.writeFileSync(path.join(dir, 'custom.xml'), seq('custom', `
    <property name="HTTP_SC" value="555" scope="axis2"/>
    <header name="X-From" expression="get-property('api.ut.api')" scope="transport"/>
    <payloadFactory media-type="json"><format>{"code":$1,"description":"$2"}</format>
      <args><arg expression="$ctx:ERROR_CODE"/><arg expression="$ctx:ERROR_MESSAGE"/></args></payloadFactory>
    <property name="messageType" value="application/json" scope="axis2"/>
    <send/>`));
  fs.writeFileSync(path.join(dir, '_auth_failure_handler_.xml'), seq('_auth_failure_handler_', '<sequence key="custom"/><drop/>'));
  const repo = new SequenceRepository({ dir, logger: captureLogger().logger });
  repo.rescan();
  const worker = new Worker(new URL('./fixtures/compile-worker.ts', import.meta.url));
  t.teardown(() => worker.terminate());
  const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.postMessage(repo.snapshot());
  });
  t.same(answer, {
    generation: repo.generation,
    status: 555,
    headers: [['X-From', 'PizzaShackAPI'], ['Content-Type', 'application/json']],
    body: '{"code":900901,"description":"Invalid Credentials"}',
    renderedBy: '_auth_failure_handler_',
  });
});
