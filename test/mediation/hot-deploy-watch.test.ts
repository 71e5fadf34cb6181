// Hot deployment through the watcher: add, change and delete take effect without restart, each change
// yields a new SequenceSet (structured-clone safe, for the io threads); a broken file keeps the previous
// version; deleting a shipped sequence's file restores its built-in default.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SequenceRegistry, SequenceRepository, renderFault, type SequenceSet } from '../../mediation/index.js';
import { captureLogger, copyShipped, json, seq, tmpDir, until } from './fixtures/helpers.js';

t.test('add, change, broken change, delete: seen by the watcher', async (t) => {
  const dir = tmpDir(t);
  copyShipped(dir);
  const { logger, messages } = captureLogger();
  const repo = new SequenceRepository({ dir, logger });
  repo.rescan();
  const sets: SequenceSet[] = [];
  const watcher = repo.watch((s) => sets.push(structuredClone(s)), { debounceMs: 30, rescanIntervalMs: 250 });
  t.teardown(() => watcher.close());
  const latest = (): SequenceRegistry => SequenceRegistry.compile(sets.at(-1)!);
  const handlerFile = path.join(dir, '_auth_failure_handler_.xml');
  const status = (): number => renderFault(latest(), { code: 900901 }).status;

  // Add a custom sequence and point the handler at it.
  fs.writeFileSync(path.join(dir, 'teapot.xml'), seq('teapot', `
    <property name="HTTP_SC" value="418" scope="axis2"/>
    <payloadFactory media-type="json"><format>{"code":$1,"v":1}</format><args><arg expression="$ctx:ERROR_CODE"/></args></payloadFactory>
    <send/>`));
  await until(() => sets.some((s) => s.sequences.some((a) => a.name === 'teapot')), 5000, 'teapot deployed');
  fs.writeFileSync(handlerFile, seq('_auth_failure_handler_', '<sequence key="teapot"/><drop/>'));
  await until(() => sets.length > 0 && status() === 418, 5000, 'handler using teapot');
  t.same(json(renderFault(latest(), { code: 900901 }).body), { code: 900901, v: 1 });
  t.ok(messages().some((m) => m.startsWith('sequence deployed: teapot (')));

  // Change it.
  const before = sets.length;
  fs.writeFileSync(path.join(dir, 'teapot.xml'), seq('teapot', `
    <property name="HTTP_SC" value="418" scope="axis2"/>
    <payloadFactory media-type="json"><format>{"code":$1,"v":2}</format><args><arg expression="$ctx:ERROR_CODE"/></args></payloadFactory>
    <send/>`));
  await until(() => sets.length > before && (json(renderFault(latest(), { code: 900901 }).body) as { v: number }).v === 2, 5000, 'teapot v2');

  // A broken change keeps v2 deployed and says why.
  const generation = repo.generation;
  fs.writeFileSync(path.join(dir, 'teapot.xml'), seq('teapot', '<property name="HTTP_SC" value="500" scope="axis2"/>\n<teapot/>'));
  await until(() => messages().some((m) => /teapot\.xml:4(:\d+)?: <teapot>: unknown mediator <teapot>.*the previous version stays deployed/.test(m)), 5000, 'error logged');
  t.equal(repo.generation, generation, 'nothing redeployed');
  t.equal((json(renderFault(latest(), { code: 900901 }).body) as { v: number }).v, 2);

  // Delete the handler file: the built-in default answers again.
  fs.unlinkSync(handlerFile);
  await until(() => status() === 401, 5000, 'built-in handler back');
  t.same(json(renderFault(latest(), { code: 900901 }).body), {
    fault: { code: 900901, type: 'Status report', message: 'Invalid Credentials', description: 'Invalid Credentials. Make sure you have provided the correct security credentials' },
  });
  t.ok(messages().some((m) => /sequence undeployed: _auth_failure_handler_ .*built-in default/.test(m)));

  // Delete the broken custom file: it goes away (nothing references it any more).
  fs.unlinkSync(path.join(dir, 'teapot.xml'));
  await until(() => !sets.at(-1)!.sequences.some((a) => a.name === 'teapot'), 5000, 'teapot gone');
  t.same(repo.errors(), [], 'no file left in error');
});

t.test('the periodic rescan catches what the watcher misses, and a directory that appears later', async (t) => {
  const parent = tmpDir(t);
  const dir = path.join(parent, 'sequences');
  const { logger } = captureLogger();
  const repo = new SequenceRepository({ dir, logger });
  t.notOk(repo.rescan(), 'a missing directory: built-ins only, no error');
  t.equal(repo.get('fault')!.file, 'builtin:fault');
  const sets: SequenceSet[] = [];
  const watcher = repo.watch((s) => sets.push(s), { debounceMs: 10, rescanIntervalMs: 100 });
  t.teardown(() => watcher.close());
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'late.xml'), seq('late', '<drop/>'));
  await until(() => sets.some((s) => s.sequences.some((a) => a.name === 'late')), 5000, 'late deployed');
  t.pass('deployed');
});

t.test('close stops watching', async (t) => {
  const dir = tmpDir(t);
  const { logger } = captureLogger();
  const repo = new SequenceRepository({ dir, logger });
  repo.rescan();
  const sets: SequenceSet[] = [];
  const watcher = repo.watch((s) => sets.push(s), { debounceMs: 10, rescanIntervalMs: 50 });
  watcher.close();
  fs.writeFileSync(path.join(dir, 'a.xml'), seq('a', '<drop/>'));
  await new Promise((r) => setTimeout(r, 300));
  t.equal(sets.length, 0);
});
