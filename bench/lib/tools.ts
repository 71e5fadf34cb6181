import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';

/** Whether a program is on PATH (or in /usr/sbin, where Debian puts nginx and haproxy). */
export function onPath(name: string): boolean {
  const dirs = [...(process.env['PATH'] ?? '').split(path.delimiter), '/usr/sbin', '/sbin'];
  return dirs.some((d) => d !== '' && fs.existsSync(path.join(d, name)));
}

/** Debian's package of a program, where its name is not the program's. */
const PACKAGE_OF: Readonly<Record<string, string>> = { h2load: 'nghttp2-client' };
const packageOf = (program: string): string => PACKAGE_OF[program] ?? program;

/**
 * The programs `npm run bench` starts, installed with apt-get when missing (as .ci/run does), when this is
 * Debian and we are root. Fails naming what is missing and how to install it otherwise.
 */
export function ensurePrograms(programs: readonly string[]): void {
  let missing = programs.filter((p) => !onPath(p));
  if (missing.length === 0) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && onPath('apt-get')) {
    process.stdout.write(`installing ${missing.map(packageOf).join(', ')} (apt-get)\n`);
    try {
      execFileSync('apt-get', ['update', '-q'], { stdio: 'ignore' });
      execFileSync('apt-get', ['install', '-y', '-q', ...missing.map(packageOf)], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch { /* said below */ }
    missing = missing.filter((p) => !onPath(p));
  }
  if (missing.length > 0) throw new Error(`npm run bench needs ${missing.join(', ')}: apt-get install -y ${missing.map(packageOf).join(' ')}`);
}

/** A program's version line, for the results (`nginx -v` prints it on stderr, `haproxy -v` on stdout). */
export function versionOf(cmd: string, args: readonly string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').find((l) => l.trim() !== '')?.trim() ?? 'unknown';
}

/** Runs a load generator to its end, without blocking the event loop (the bench samples RSS meanwhile): its exit code and output. */
export function runProgram(cmd: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    c.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    c.once('error', reject);
    c.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
