// Deploy-time checks across files: a sequence key naming nothing deployed, a cycle of references, a name
// deployed twice. A failing file keeps its previous version deployed, and the log says file, line and why.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SequenceRepository, findCycles, parseSequence } from '../../mediation/index.js';
import { captureLogger, seq, tmpDir } from './fixtures/helpers.js';

function setup(t: Parameters<typeof tmpDir>[0]) {
  const dir = tmpDir(t);
  const cap = captureLogger();
  const repo = new SequenceRepository({ dir, logger: cap.logger });
  const write = (name: string, body: string, seqName = name): string => {
    const file = path.join(dir, `${name}.xml`);
    fs.writeFileSync(file, seq(seqName, body));
    return file;
  };
  return { dir, repo, write, ...cap };
}

t.test('a sequence key that names no deployed sequence: the file is not deployed, located', async (t) => {
  const { repo, write, records } = setup(t);
  const file = write('handler', '<log/>\n<sequence key="acme_missing"/>\n<drop/>');
  repo.rescan();
  t.equal(repo.get('handler'), undefined);
  const [e] = repo.errors();
  t.equal(e!.file, file);
  t.equal(e!.line, 4);
  t.equal(e!.element, 'sequence');
  t.match(e!.reason, /sequence key "acme_missing" names no deployed sequence/);
  const rec = records.find((r) => r.level === 50)!;
  t.match(rec.msg, /^sequence not deployed: .*handler\.xml:4: <sequence>: sequence key "acme_missing"/);
  t.equal(rec['file'], file);
  t.equal(rec['line'], 4);
});

t.test('the seed\'s order (custom sequence first) works; the other order deploys once the key exists', async (t) => {
  const { repo, write, messages } = setup(t);
  write('_auth_failure_handler_', '<sequence key="custom"/><drop/>');
  repo.rescan();
  t.equal(repo.get('_auth_failure_handler_')!.file, 'builtin:_auth_failure_handler_', 'the built-in default stays deployed');
  t.equal(repo.errors().length, 1);
  t.notOk(repo.rescan(), 'a rescan with nothing new changes nothing');
  t.equal(messages().filter((m) => m.startsWith('sequence not deployed')).length, 1, 'and does not log the same problem again');
  write('custom', '<send/>');
  t.ok(repo.rescan());
  t.match(repo.get('_auth_failure_handler_')!.file, /_auth_failure_handler_\.xml$/, 'deployed now that its key exists');
  t.same(repo.errors(), []);
});

t.test('a cycle of sequence references is an error for the file that closes it', async (t) => {
  const { repo, write } = setup(t);
  write('a', '<sequence key="b"/>');
  write('b', '<log/>');
  repo.rescan();
  t.same(repo.errors(), []);
  const bFile = write('b', '<log/>\n<sequence key="a"/>');
  t.notOk(repo.rescan(), 'nothing deployed changed');
  const [e] = repo.errors();
  t.equal(e!.file, bFile);
  t.equal(e!.line, 4);
  t.match(e!.reason, /cycle of sequence references: b -> a -> b/);
  t.same(repo.get('b')!.refs, [], 'the previous b stays deployed');
});

t.test('a sequence calling itself, and a cycle in one initial load', async (t) => {
  const { repo, write } = setup(t);
  write('self', '<sequence key="self"/>');
  write('x', '<sequence key="y"/>');
  write('y', '<filter source="$ctx:a" regex="1"><sequence key="x"/></filter>');
  repo.rescan();
  const reasons = repo.errors().map((e) => e.reason).sort();
  t.equal(reasons.length, 3);
  t.match(reasons.join('\n'), /self -> self/);
  t.match(reasons.join('\n'), /x -> y -> x/);
  t.equal(repo.get('self'), undefined);
  t.equal(repo.get('x'), undefined);
});

t.test('onError names a sequence that must be deployed too', async (t) => {
  const { repo, dir } = setup(t);
  fs.writeFileSync(path.join(dir, 'main2.xml'), seq('main2', '<drop/>', ' onError="nope"'));
  repo.rescan();
  t.match(repo.errors()[0]!.reason, /sequence key "nope"/);
});

t.test('two files deploying one name: the later one is refused', async (t) => {
  const { repo, write } = setup(t);
  write('one', '<log/>', 'dup');
  const second = write('two', '<drop/>', 'dup');
  repo.rescan();
  t.equal(repo.get('dup')!.body[0]!.kind, 'log');
  t.equal(repo.errors()[0]!.file, second);
  t.match(repo.errors()[0]!.reason, /already deployed from .*one\.xml/);
});

t.test('a parse error keeps the previous version; fixing the file deploys it', async (t) => {
  const { repo, write, dir, records } = setup(t);
  write('s', '<property name="v" value="1"/>');
  repo.rescan();
  const g = repo.generation;
  fs.writeFileSync(path.join(dir, 's.xml'), '<sequence name="s">\n<property name="v" value="2">\n</sequence>');
  t.notOk(repo.rescan());
  t.equal(repo.generation, g);
  t.equal((repo.get('s')!.body[0] as { value?: string }).value, '1');
  const last = records.at(-1)!;
  t.match(last.msg, /s\.xml:3(:\d+)?: malformed XML: .*; the previous version stays deployed$/);
  write('s', '<property name="v" value="3"/>');
  t.ok(repo.rescan());
  t.equal((repo.get('s')!.body[0] as { value?: string }).value, '3');
  t.same(repo.errors(), []);
});

t.test('deleting a sequence others reference undeploys them, shipped names back to their default', async (t) => {
  const { repo, write, dir, messages } = setup(t);
  write('custom', '<send/>');
  write('_throttle_out_handler_', '<sequence key="custom"/>');
  repo.rescan();
  t.match(repo.get('_throttle_out_handler_')!.file, /\.xml$/);
  fs.unlinkSync(path.join(dir, 'custom.xml'));
  t.ok(repo.rescan());
  t.equal(repo.get('custom'), undefined);
  t.equal(repo.get('_throttle_out_handler_')!.file, 'builtin:_throttle_out_handler_');
  t.ok(messages().some((m) => /sequence undeployed: _throttle_out_handler_ .*the built-in default _throttle_out_handler_ is deployed instead/.test(m)));
});

t.test('findCycles over plain ASTs', async (t) => {
  const asts = new Map(['a', 'b', 'c'].map((n, i) => [n, parseSequence(seq(n, `<sequence key="${['b', 'c', 'a'][i]}"/>`), `${n}.xml`)]));
  t.same(findCycles(asts), [['a', 'b', 'c', 'a']]);
});
