// The sink of the access log, analytics and tracing files (engine/operations/file-sink.ts): lines reach the
// file in order and as UTF-8, a burst past the flush size included; after an external rotation `reopen`
// writes to the new file; `close` writes what waits. Real files in a temporary directory.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { FileSink } from '../../engine/operations/file-sink.js';
import { requireBuild } from '../fixtures/sluice-process.js';

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

t.test('encoded batches and text lines reach the file in the order written, as the same bytes', async (t) => {
  const file = path.join(tmp(t), 'mixed.log');
  const sink = new FileSink(file);
  const expected: Buffer[] = [];
  const text = (s: string): void => { sink.write(s); expected.push(Buffer.from(s, 'utf8')); };
  const bytes = (s: string): void => { const b = Buffer.from(s, 'utf8'); sink.writeBytes(b); expected.push(b); };
  text('servlet line caf\u00e9\n');
  bytes('batch one\nbatch one, second line\n');
  bytes('');
  text('text after a batch\n');
  text('and another\n');
  for (let i = 0; i < 40; i++) bytes(`${i} ${'y'.repeat(4000)}\n`); // past the flush size within the tick
  text('last \u65e5\u672c\n');
  await sink.close();
  t.ok(fs.readFileSync(file).equals(Buffer.concat(expected)));
});

t.test('the caller may use its buffer again once written, and the sink writes from blocks it keeps, not a buffer per write', async (t) => {
  // The access log writes each batch's lines from one buffer used batch after batch (telemetry-hub.ts).
  const file = path.join(tmp(t), 'reuse.log');
  const sink = new FileSink(file);
  const batch = Buffer.alloc(128 * 1024, 0x62);
  const expected = crypto.createHash('sha256');
  const before = process.memoryUsage().arrayBuffers;
  let peak = 0;
  for (let i = 0; i < 400; i++) { // 50 MiB through one buffer
    batch.write(`${String(i).padStart(6, '0')}\n`, 0, 'latin1');
    batch[batch.length - 1] = 0x0a;
    sink.writeBytes(batch);
    expected.update(batch);
    if (i % 8 === 7) {
      // Paced to the disk: what waits stays small, so what is held is the sink's own.
      const written = (i + 1) * batch.length;
      while (fs.statSync(file).size < written - 1024 * 1024) await new Promise((r) => setTimeout(r, 1));
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
    }
  }
  await sink.close();
  t.equal(crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'), expected.digest('hex'), 'every batch as it was when written, in order');
  // No collection is forced: a buffer per write would be 50 MiB of ArrayBuffers until one ran.
  t.ok(peak < 8 * 1024 * 1024, `${(peak / 1048576).toFixed(1)} MiB of ArrayBuffers at most while 50 MiB went through`);
});

const devFull = fs.existsSync('/dev/full') ? false : 'no /dev/full here';

t.test('a file that cannot be written (/dev/full): nothing throws, what waits stays bounded, close answers', { skip: devFull }, async (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const sink = new FileSink('/dev/full');
  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array): boolean => { stderr.push(String(chunk)); return true; }) as typeof process.stderr.write;
  t.teardown(() => { process.stderr.write = write; });
  const batch = Buffer.alloc(50 * 1024, 0x61);
  batch[batch.length - 1] = 0x0a;
  gc();
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 2000; i++) { // 100 MiB offered, far past what may wait (16 MiB)
    sink.writeBytes(Buffer.from(batch));
    sink.write('a text line\n');
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  // Writes the thread pool still runs hold their buffers for a moment (longer on a loaded machine, where
  // one reading after 100 ms once found 26.6 MiB): read again for up to 2 s. A sink without a bound holds
  // the 100 MiB for good.
  let held = Infinity;
  for (let i = 0; i < 20 && held >= 24 * 1024 * 1024; i++) {
    await new Promise((r) => setTimeout(r, 100));
    gc();
    held = process.memoryUsage().arrayBuffers - before;
  }
  t.ok(held < 24 * 1024 * 1024, `${(held / 1048576).toFixed(1)} MiB held after 100 MiB offered`);
  t.equal(stderr.filter((l) => l.includes('cannot write /dev/full')).length, 1, 'the failure said once on stderr');
  const closed = await Promise.race([sink.close().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
  t.ok(closed, 'close answers although what waits cannot be written');
});

t.test('a process whose log files cannot be written still exits by itself once they are closed', { skip: devFull }, async (t) => {
  // pino ends its destinations when the loop empties ('beforeExit'); a write that fails there used to
  // start the loop again, for ever: a stopped gateway with a full log volume never exited.
  // The built modules: the child runs plain Node, without the test runner's TypeScript loader.
  requireBuild();
  const sinkUrl = new URL('../../dist/engine/operations/file-sink.js', import.meta.url).href;
  const loggerUrl = new URL('../../dist/engine/log/logger.js', import.meta.url).href;
  const script = `
    const { FileSink } = await import(${JSON.stringify(sinkUrl)});
    const { fileDestination } = await import(${JSON.stringify(loggerUrl)});
    const sink = new FileSink('/dev/full');
    const log = fileDestination('/dev/full');
    for (let i = 0; i < 50; i++) { sink.write('x'.repeat(1000) + '\\n'); log.write('y'.repeat(1000) + '\\n'); }
    await new Promise((r) => setTimeout(r, 50));
    await sink.close();
    console.log('closed');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { err += String(d); });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(null); }, 10_000);
    child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
  });
  t.match(out, /closed/, `the sink closed ${err.slice(0, 400)}`);
  t.equal(code, 0, 'and the process exited by itself (null: still running after 10 s, killed)');
});
