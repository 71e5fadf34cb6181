import type { KeyManagerAccessView } from '../../conf/views/keymanager.js';
import type { Logger } from '../log/logger.js';
import type { ApimStore, UserRecord } from '../store/index.js';
import { hashSecret, verifySecret } from './secret-hash.js';
import { DUMMY_HASH } from './directory.js';
import type { StoreUser, UserStore } from './user-store/user-store.js';

export const ADMIN_ROLE = 'admin';

/**
 * The embedded user store: resource owners of the password and authorization code grants and the
 * administrators who may register clients, revoke any token and call the introspection endpoint. Passwords
 * are scrypt hashes.
 */
export class UserDirectory implements UserStore {
  constructor(private readonly store: ApimStore) {}

  /**
   * [super_admin] create_admin_account: the super admin exists with the configured password and the admin
   * role. deployment.toml is the source of truth: a changed password replaces the stored hash at start.
   */
  async ensureSuperAdmin(view: KeyManagerAccessView['superAdmin'], log: Logger): Promise<void> {
    if (!view.create) return;
    if (view.password === undefined || view.password === '') {
      log.warn({ user: view.username }, '[super_admin] has no password: the administrator account is not created');
      return;
    }
    const existing = await this.store.users.get(view.username);
    if (existing && existing.roles.includes(ADMIN_ROLE) && (await verifySecret(view.password, existing.passwordHash))) return;
    await this.store.users.put(view.username, await hashSecret(view.password), [...new Set([...(existing?.roles ?? []), ADMIN_ROLE])], Date.now(),
      { claims: existing?.claims ?? {}, source: 'config' });
    log.info({ user: view.username }, existing ? 'super admin account updated from [super_admin]' : 'super admin account created');
  }

  async authenticate(username: string, password: string): Promise<UserRecord | undefined> {
    const user = await this.store.users.get(username);
    if (!user) { await verifySecret(password, DUMMY_HASH); return undefined; }
    return (await verifySecret(password, user.passwordHash)) ? user : undefined;
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
