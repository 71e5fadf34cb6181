import type { UserClaims } from '../../store/index.js';
import type { AuthBackoff } from '../auth-backoff.js';

/** A user as the token service sees one, whichever store holds it. */
export interface StoreUser {
  readonly username: string;
  readonly roles: readonly string[];
  /** OpenID Connect profile claims (name, email...). */
  readonly claims: UserClaims;
}

/**
 * Where resource owners are checked: the password and authorization code grants, Basic auth at the
 * gateway, userinfo. Implementations: the database (engine/keymanager/users.ts), a read-only LDAP
 * directory (ldap-user-store.ts), and the chain of both. Authentication failures of any kind (unknown user,
 * wrong password, directory refusal) are `undefined` and cost about the same, so that no answer tells an
 * unknown user from a wrong password. Lock-out and back-off wrap this interface (they are not its business).
 */
export interface UserStore {
  authenticate(username: string, password: string): Promise<StoreUser | undefined>;
  /** The user without a password check (userinfo, jwt-bearer subjects); undefined when unknown. */
  find(username: string): Promise<StoreUser | undefined>;
  close?(): Promise<void>;
}

/**
 * `users.authenticate()` under the back-off of failed logins of `username` from `from`: TooManyFailuresError
 * (429) while it lasts, without checking the password. Every door a user's password comes through (the
 * token endpoint, the sign-in page, Basic auth on APIs, the admin API) uses this one.
 */
export function login<U extends StoreUser>(
  backoff: AuthBackoff, users: { authenticate(username: string, password: string): Promise<U | undefined> },
  username: string, password: string, from: string, error: 'invalid_client' | 'invalid_grant' = 'invalid_client',
): Promise<U | undefined> {
  return backoff.attempt(username, from, () => users.authenticate(username, password), error);
}

/** Tries each store in order: the first that knows the user decides (a wrong password there is final). */
export class ChainedUserStore implements UserStore {
  constructor(private readonly stores: readonly (UserStore & { knows(username: string): Promise<boolean> })[]) {}

  async authenticate(username: string, password: string): Promise<StoreUser | undefined> {
    for (let i = 0; i < this.stores.length; i++) {
      const s = this.stores[i]!;
      if (i < this.stores.length - 1 && !(await s.knows(username))) continue;
      return s.authenticate(username, password);
    }
    return undefined;
  }

  async find(username: string): Promise<StoreUser | undefined> {
    for (const s of this.stores) {
      const u = await s.find(username);
      if (u) return u;
    }
    return undefined;
  }

  async close(): Promise<void> {
    for (const s of this.stores) await s.close?.();
  }
}
