import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../fixtures/sluice-process.js';

export interface CliRun { readonly status: number | null; readonly stdout: string; readonly stderr: string }

/** `node bin/sluice.js ...args` to the end (the compiled CLI: npm test builds first). Asynchronous, so the
 * test's own servers keep answering while it runs. */
export function cli(args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/sluice.js'), ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}
