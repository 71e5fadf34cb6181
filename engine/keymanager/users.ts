import type { KeyManagerAccessView } from '../../conf/views/keymanager.js';
import type { Logger } from '../log/logger.js';
import type { ApimStore, UserRecord } from '../store/index.js';
import type { AuthBackoff } from './auth-backoff.js';
import { hashSecret, verifySecret } from './secret-hash.js';
import { DUMMY_HASH } from './directory.js';
import { login, type StoreUser, type UserStore } from './user-store/user-store.js';

export const ADMIN_ROLE = 'admin';

/**
/**
 * The embedded user store: resource owners of the password and authorization code grants and the
 * administrators who may register clients, revoke any token and call the introspection endpoint. Passwords
 * are scrypt hashes. `backoff` counts failed logins of the whole process (the token endpoint's client
 * authentication, the sign-in page and the admin API share it).
 */
export class UserDirectory implements UserStore {
  constructor(private readonly store: ApimStore, readonly backoff: AuthBackoff) {}

  /**
   * [super_admin] create_admin_account: the super admin exists with the configured password and the admin
   * role. deployment.toml is the source of truth: a changed password replaces the stored hash at start.
   */
  async ensureSuperAdmin(view: KeyManagerAccessView['superAdmin'], log: Logger): Promise<void> {
    if (!view.create) return;
    if (view.password === undefined || view.password === '') {
      log.warn({ user: view.username, file: view.generatedPasswordFile }, '[super_admin] has no password and none was generated: the administrator account is not created');
      return;
    }
    const existing = await this.store.users.get(view.username);
    if (existing && existing.roles.includes(ADMIN_ROLE) && (await verifySecret(view.password, existing.passwordHash))) return;
    await this.store.users.put(view.username, await hashSecret(view.password), [...new Set([...(existing?.roles ?? []), ADMIN_ROLE])], Date.now(),
      { claims: existing?.claims ?? {}, source: 'config' });
    log.info({ user: view.username }, existing ? 'super admin account updated from [super_admin]' : 'super admin account created');
  }

  /** The user when the password is right, else undefined (same cost for an unknown user). No back-off: see login(). */
  async authenticate(username: string, password: string): Promise<UserRecord | undefined> {
    const user = await this.store.users.get(username);
    if (!user) { await verifySecret(password, DUMMY_HASH, username); return undefined; }
    return (await verifySecret(password, user.passwordHash, username)) ? user : undefined;
  }

  /** authenticate() under the back-off of failed logins from `from` (TooManyFailuresError, 429, while it lasts). */
  login(username: string, password: string, from: string, error: 'invalid_client' | 'invalid_grant' = 'invalid_client'): Promise<UserRecord | undefined> {
    return login(this.backoff, this, username, password, from, error);
  }

  async find(username: string): Promise<StoreUser | undefined> {
    return this.store.users.get(username);
  }

  async knows(username: string): Promise<boolean> {
    return (await this.store.users.get(username)) !== undefined;
  }

  async addUser(username: string, password: string, roles: readonly string[] = [], claims: Readonly<Record<string, string>> = {}, source = 'store'): Promise<void> {
    await this.store.users.put(username, await hashSecret(password), roles, Date.now(), { claims, source });
  }
}
