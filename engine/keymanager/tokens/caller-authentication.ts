import { basicCredentials, presentedCredentials, rejectRepeatedParameters } from '../client-auth.js';
import type { Client } from '../directory.js';
import { InvalidClientError, InvalidRequestError } from '../errors.js';
import { safeEqual } from '../secret-hash.js';
import { ADMIN_ROLE } from '../users.js';
import { login } from '../user-store/user-store.js';
import type { TokenServiceOptions } from './options.js';
import type { StoreGuard } from './store-guard.js';

/** Who called a revocation: a client (its own tokens) or an administrator (any token). */
export type Caller =
  | { readonly kind: 'client'; readonly name: string; readonly client: Client }
  | { readonly kind: 'admin'; readonly name: string };

/** What the internal authenticate route (routes.ts) answers a gateway about a resource owner's user name and password. */
export type UserCheck = { active: false } | { active: true; username: string; roles: readonly string[]; scopes: readonly string[] };

/**
 * The callers of the token endpoints: clients, administrators, and gateways validating tokens. Every check of
 * a caller's secret runs under the back-off of failed authentications (AuthBackoff, shared with the user
 * directory): one identity from one address, counted once per request.
 */
export class CallerAuthentication {
  constructor(
    private readonly o: Pick<TokenServiceOptions, 'clients' | 'users' | 'backoff' | 'roleScopes' | 'validation'>,
    private readonly guard: StoreGuard,
  ) {}

  async client(form: URLSearchParams, authorization: string | undefined, from: string): Promise<Client> {
    const creds = presentedCredentials(form, authorization);
    if (!creds) throw new InvalidClientError('client authentication is required: HTTP Basic with the client id and secret, or client_id and client_secret in the body');
    const client = await this.guard.run(() => this.o.backoff.attempt(creds.id, from, () => this.o.clients.authenticate(creds.id, creds.secret)));
    if (!client) throw new InvalidClientError();
    return client;
  }

  /** A client, or (HTTP Basic only) a user with the admin role. */
  async caller(form: URLSearchParams, authorization: string | undefined, from: string): Promise<Caller> {
    const creds = presentedCredentials(form, authorization);
    if (!creds) throw new InvalidClientError('client authentication is required: HTTP Basic with the client id and secret, or client_id and client_secret in the body');
    const caller = await this.guard.run(() => this.o.backoff.attempt<Caller>(creds.id, from, async () => {
      const client = await this.o.clients.authenticate(creds.id, creds.secret);
      if (client) return { kind: 'client', name: client.key.clientId, client };
      if (creds.method !== 'basic') return undefined;
      const user = await this.o.users.authenticate(creds.id, creds.secret);
      return user && user.roles.includes(ADMIN_ROLE) ? { kind: 'admin', name: user.username } : undefined;
    }));
    if (!caller) throw new InvalidClientError();
    return caller;
  }

  /** The introspection caller: the [apim.key_manager] credentials, or a user with the admin role. */
  async validator(authorization: string | undefined, from: string): Promise<string> {
    const basic = basicCredentials(authorization);
    if (!basic) throw new InvalidClientError('HTTP Basic authentication with the key manager credentials is required');
    const v = this.o.validation;
    const name = await this.guard.run(() => this.o.backoff.attempt(basic.id, from, async () => {
      if (v.password !== undefined && safeEqual(basic.id, v.username) && safeEqual(basic.secret, v.password)) return basic.id;
      const user = await this.o.users.authenticate(basic.id, basic.secret);
      return user && user.roles.includes(ADMIN_ROLE) ? user.username : undefined;
    }));
    if (name === undefined) throw new InvalidClientError();
    return name;
  }

  /**
   * A resource owner's user name and password checked for a gateway (Basic auth on an API): the caller
   * authenticates as for introspection. Answers the user's roles and the scopes they bind, or inactive.
   */
  async user(form: URLSearchParams, authorization: string | undefined, from: string): Promise<UserCheck> {
    rejectRepeatedParameters(form);
    await this.validator(authorization, from);
    const username = form.get('username');
    const password = form.get('password');
    if (!username || password === null) throw new InvalidRequestError('username and password are required');
    // The gateway names the client's address: guesses through an API's Basic auth back off per user and
    // client, as at the token endpoint (429, which the gateway turns into 900911 with Retry-After).
    const clientAddress = form.get('client_address');
    const user = await this.guard.run(() => login(this.o.backoff, this.o.users, username, password, clientAddress || from, 'invalid_grant'));
    if (!user) return { active: false };
    return { active: true, username: user.username, roles: user.roles, scopes: await this.guard.run(() => this.o.roleScopes.scopesOf(user.roles)) };
  }
}
