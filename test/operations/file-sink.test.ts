// The sink of the access log, analytics and tracing files (engine/operations/file-sink.ts): lines reach the
// file in order and as UTF-8, a burst past the flush size included; after an external rotation `reopen`
// writes to the new file; `close` writes what waits. Real files in a temporary directory.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileSink } from '../../engine/operations/file-sink.js';

function tmp(t: Tap.Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-file-sink-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('lines reach the file in order, as UTF-8, a burst past the flush size included', async (t) => {
  const file = path.join(tmp(t), 'logs', 'access.log');
  const sink = new FileSink(file);
  const lines: string[] = [];
  lines.push('first line: caf\u00e9 \u65e5\u672c\n');
  for (let i = 0; i < 3000; i++) lines.push(`${i} ${'x'.repeat(60)}\n`); // about 200 KB in one tick
  for (const l of lines) sink.write(l);
  await new Promise((r) => setTimeout(r, 50));
  sink.write('after a tick\n');
  await sink.close();
  const got = fs.readFileSync(file);
  t.equal(got.toString('utf8'), lines.join('') + 'after a tick\n');
  t.ok(got.includes(Buffer.from('caf\u00e9', 'utf8')), 'U+00E9 as its two UTF-8 bytes');
});

t.test('reopen after an external rotation: later lines go to the new file', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'access.log');
  const sink = new FileSink(file);
  sink.write('before\n');
  await new Promise((r) => setTimeout(r, 50));
  fs.renameSync(file, `${file}.1`);
  sink.reopen();
  await new Promise((r) => setTimeout(r, 50));
  sink.write('after\n');
  await sink.close();
  t.equal(fs.readFileSync(`${file}.1`, 'utf8'), 'before\n');
  t.equal(fs.readFileSync(file, 'utf8'), 'after\n');
});

t.test('a write after close is dropped, not thrown', async (t) => {
  const file = path.join(tmp(t), 'a.log');
  const sink = new FileSink(file);
  sink.write('one\n');
  await sink.close();
  t.doesNotThrow(() => sink.write('two\n'));
  t.equal(fs.readFileSync(file, 'utf8'), 'one\n');
});
