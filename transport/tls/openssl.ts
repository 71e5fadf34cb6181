import { execFileSync } from 'node:child_process';
import { KeyStoreError } from './tls-errors.js';

/**
 * Runs the openssl command line tool. Node has no API to read PKCS12 files or to issue certificates, and
 * openssl is the well-kept tool for both; secrets reach it through environment variables, never argv.
 */
export function openssl(args: readonly string[], file: string, secrets: Record<string, string> = {}, input?: Buffer): Buffer {
  try {
    return execFileSync('openssl', args, {
      env: { ...process.env, ...secrets },
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new KeyStoreError(file, 'the openssl command is needed to read PKCS12 key stores and to generate the self-signed one; install it (apt-get install openssl)');
    const why = e.stderr?.toString('utf8').split('\n').find((l) => l.trim().length > 0) ?? e.message;
    throw new KeyStoreError(file, why.trim());
  }
}
