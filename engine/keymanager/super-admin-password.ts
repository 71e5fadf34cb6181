import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SuperAdminView } from '../../conf/views/keymanager.js';
import type { Logger } from '../log/logger.js';
import { tightenMode } from './token-crypto.js';

/**
 * No well-known administrator password: when [super_admin] create_admin_account is on and deployment.toml
 * sets no password, a random one is generated on first start into the home (mode 0600; the directory 0700)
 * and the log says where. Later starts use the same file (conf/views/keymanager.ts reads it), so the
 * password stays until the operator sets one in deployment.toml or deletes the file. The choice against
 * refusing to start is in docs/decisions.md: `npm start` must work on a fresh clone.
 *
 * Returns true when a password was generated now.
 */
export function ensureSuperAdminPassword(view: SuperAdminView, log: Logger): boolean {
  if (!view.create || view.passwordSource === 'config') return false;
  const file = view.generatedPasswordFile;
  if (view.passwordSource === 'generated') {
    if (tightenMode(file)) log.warn({ file }, 'the generated super admin password file was readable by others: its mode is now 0600');
    log.info({ user: view.username, file }, 'super admin password: the generated one (set [super_admin] password to choose your own)');
    return false;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const password = crypto.randomBytes(18).toString('base64url');
  try {
    fs.writeFileSync(file, password + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process of this home wrote it first: theirs is the password.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new Error(`[super_admin] has no password and one cannot be generated into ${file}: ${(err as Error).message}`);
  }
  log.warn({ user: view.username, file },
    `[super_admin] sets no password: generated a random one for "${view.username}" into ${file} (readable by its owner only). `
    + 'Read it there to use the admin API or the password grant, or set [super_admin] password in deployment.toml');
  return true;
}
