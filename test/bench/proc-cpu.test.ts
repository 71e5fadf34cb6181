import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import t from 'tap';
import { clockTicksPerSecond, CpuMeter, cpuTicks, parseProcStat, perCall, processTree } from '../../bench/lib/proc-cpu.js';

const fixtures = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/bench/proc-stat-lines.json'), 'utf8')) as {
  cases: { name: string; line: string; pid: number; ppid: number; user: number; system: number }[];
};

t.test('a /proc/<pid>/stat line gives pid, ppid, user and kernel ticks, whatever the command name holds', async (t) => {
  for (const c of fixtures.cases) t.same(parseProcStat(c.line), { pid: c.pid, ppid: c.ppid, user: c.user, system: c.system }, c.name);
  t.throws(() => parseProcStat('not a stat line'), /not a \/proc\/<pid>\/stat line/);
  t.throws(() => parseProcStat('12 (x) S 1 2 3'), /field 14/, 'a line cut short is refused, not read as zero');
  const self = parseProcStat(fs.readFileSync('/proc/self/stat', 'utf8'));
  t.equal(self.pid, process.pid, 'this process, read live');
  t.equal(self.ppid, process.ppid);
});

t.test('per call: the ticks between two readings over the calls, in microseconds', async (t) => {
  t.same(perCall({ user: 100, system: 50 }, { user: 130, system: 70 }, 1000, 100), { userUs: 300, kernelUs: 200 });
  t.equal(perCall({ user: 0, system: 0 }, { user: 5, system: 5 }, 0, 100), null, 'no calls, no figure');
});

/** What a burner says its own accounting (getrusage, through process.cpuUsage) charged it, in µs. */
interface OwnAccount { user: number; system: number }

/**
 * A node child that burns CPU in one mode (counted by itself with process.cpuUsage), then reports its own
 * account and waits until told to stop.
 */
function burner(mode: 'user' | 'kernel', ms: number, withGrandchild = false): Promise<{ child: ChildProcess; done: Promise<OwnAccount> }> {
  const code = `
    const fs = require('node:fs');
    const { spawn } = require('node:child_process');
    ${withGrandchild ? "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); process.on('exit', () => g.kill());" : ''}
    const zero = fs.openSync('/dev/zero', 'r');
    const big = Buffer.alloc(1 << 20);
    const field = ${JSON.stringify(mode === 'user' ? 'user' : 'system')};
    setTimeout(() => {
      // Work until the kernel has charged this process ${ms} ms in the chosen mode.
      let x = 0;
      while (process.cpuUsage()[field] < ${ms * 1000}) {
        // Reading 1 MiB of /dev/zero is the kernel clearing memory: nearly all kernel time.
        if (field === 'system') for (let i = 0; i < 20; i++) fs.readSync(zero, big, 0, big.length, null);
        else for (let i = 0; i < 1e5; i++) x += Math.sqrt(i);
      }
      const own = process.cpuUsage();
      process.stdout.write('done ' + own.user + ' ' + own.system + ' ' + (x > 0 ? 1 : 0) + '\\n');
    }, 300);
    process.stdin.on('data', () => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const done = new Promise<OwnAccount>((resolve) => child.stdout!.on('data', (d: Buffer) => {
    const m = /^done (\d+) (\d+)/.exec(String(d));
    if (m) resolve({ user: Number(m[1]), system: Number(m[2]) });
  }));
  return new Promise((resolve) => child.once('spawn', () => resolve({ child, done })));
}

t.test('a process tree: the root and the processes below it', async (t) => {
  const { child } = await burner('user', 1, true);
  t.teardown(() => { child.stdin!.write('x'); });
  let tree: number[] = [];
  for (let i = 0; i < 100 && tree.length < 2; i++) { await new Promise((r) => setTimeout(r, 50)); tree = processTree([child.pid!]); }
  t.equal(tree[0], child.pid, 'the root first');
  t.equal(tree.length, 2, 'and its child');
  t.notOk(tree.includes(process.pid), 'not the root\'s parent');
  t.same(cpuTicks([2 ** 22 + 12345]), { user: 0, system: 0 }, 'a process that is not there counts nothing');
});

t.test('user time is charged as user and kernel time as kernel, as the process itself is charged', async (t) => {
  // How the kernel splits a process's time between the two modes is its own (tick samples scaled to the
  // runtime): under a loaded machine a child that spends its time clearing pages for read(2) has been
  // charged as much user time as kernel time. So the meter is held to the child's own account of the same
  // interval (getrusage, the same accounting /proc reads), not to what the burner meant to burn; the
  // user burner, whose split never wavers, is what catches the two fields swapped.
  const tick = 1e6 / clockTicksPerSecond();
  for (const mode of ['user', 'kernel'] as const) {
    const { child, done } = await burner(mode, 400);
    const meter = new CpuMeter([child.pid!]);
    meter.start();
    const own = await done;
    const c = meter.stop(1)!;
    child.stdin!.write('x');
    await new Promise((r) => child.once('exit', r));
    // The meter starts just after the spawn and stops after the report: it may miss what the child spent
    // before the meter's first reading and gain what it spent writing the report, and each reading is
    // rounded down to a tick.
    const slack = 3 * tick + 20_000;
    t.ok(Math.abs(c.userUs - own.user) <= slack, `${mode}: user ${c.userUs} µs by /proc, ${own.user} by the child itself`);
    t.ok(Math.abs(c.kernelUs - own.system) <= slack, `${mode}: kernel ${c.kernelUs} µs by /proc, ${own.system} by the child itself`);
    const mine = mode === 'user' ? c.userUs : c.kernelUs;
    t.ok(mine >= 300_000, `${mode}: ${mine} µs in the mode that was burnt`);
    if (mode === 'user') t.ok(c.userUs > 2 * c.kernelUs, `user: more than twice kernel (${c.kernelUs} µs)`);
  }
});
