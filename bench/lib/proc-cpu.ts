import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

/**
 * CPU time of a proxy's own processes, from /proc: user and kernel, summed over a process and all its
 * descendants (nginx's master and workers, a cluster's primary and workers, one process with threads).
 * /proc/<pid>/stat counts every thread of the process, live or ended, so threads need no walk of their own.
 */

/** The fields of /proc/<pid>/stat the bench reads. `user` and `system` are in clock ticks. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly user: number;
  readonly system: number;
}

/**
 * Parses one /proc/<pid>/stat line (proc(5)). The command name sits in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from the last `)`: state, ppid, ... utime is the 14th
 * field of the line and stime the 15th.
 */
export function parseProcStat(line: string): ProcStat {
  const open = line.indexOf(' (');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  const f = line.slice(close + 2).trim().split(' ');
  // f[0] is field 3 (state): field n is f[n - 3].
  const num = (n: number): number => {
    const v = Number(f[n - 3]);
    if (!Number.isInteger(v) || v < 0) throw new Error(`field ${n} of a /proc/<pid>/stat line is not a count: ${line.slice(0, 80)}`);
    return v;
  };
  return { pid: Number(line.slice(0, open)), ppid: num(4), user: num(14), system: num(15) };
}

function readStat(pid: number): ProcStat | null {
  try { return parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return null; }
}

/** `roots` and every process below them, from one pass over /proc. */
export function processTree(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (!s) continue;
    const list = children.get(s.ppid);
    if (list) list.push(s.pid); else children.set(s.ppid, [s.pid]);
  }
  const out: number[] = [];
  const todo = [...roots];
  while (todo.length > 0) {
    const p = todo.pop()!;
    if (out.includes(p)) continue;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

export interface CpuTicks {
  readonly user: number;
  readonly system: number;
}

/** User and kernel ticks of the processes (a process that has gone counts nothing). */
export function cpuTicks(pids: readonly number[]): CpuTicks {
  let user = 0;
  let system = 0;
  for (const pid of pids) {
    const s = readStat(pid);
    if (s) { user += s.user; system += s.system; }
  }
  return { user, system };
}

let ticksPerSecond = 0;
/** The kernel's clock ticks per second (`getconf CLK_TCK`, 100 on Linux everywhere in practice). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === 0) {
    try { ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { ticksPerSecond = 100; }
  }
  return ticksPerSecond;
}

/** CPU microseconds per call, split as /proc splits it. */
export interface CpuPerCall {
  readonly userUs: number;
  readonly kernelUs: number;
}

/** Ticks spent between two readings, spread over `calls`. */
export function perCall(before: CpuTicks, after: CpuTicks, calls: number, hz: number): CpuPerCall | null {
  if (calls <= 0) return null;
  const us = 1e6 / hz / calls;
  return { userUs: (after.user - before.user) * us, kernelUs: (after.system - before.system) * us };
}

/**
 * Measures the CPU of a proxy's processes around one load: `start()` finds the process tree and reads it,
 * `stop(calls)` reads the same processes again. The tree is taken at the start, so processes a proxy starts
 * during the load are not counted (none of the bench's proxies does).
 */
export class CpuMeter {
  private pids: number[] = [];
  private before: CpuTicks = { user: 0, system: 0 };

  constructor(private readonly roots: readonly number[]) {}

  start(): void {
    this.pids = processTree(this.roots);
    this.before = cpuTicks(this.pids);
  }

  stop(calls: number): CpuPerCall | null {
    return perCall(this.before, cpuTicks(this.pids), calls, clockTicksPerSecond());
  }
}
