import { Client, InvalidCredentialsError } from 'ldapts';
import type { LdapUserStoreView } from '../../../conf/views/identity.js';
import type { Logger } from '../../log/logger.js';
import { StoreUnavailableError } from '../../store/index.js';
import type { StoreUser } from './user-store.js';

const MAX_USERNAME = 256;
/** Directory attributes read into OpenID Connect claims. */
const CLAIM_ATTRIBUTES: Readonly<Record<string, string>> = { mail: 'email', givenName: 'given_name', sn: 'family_name', telephoneNumber: 'phone_number' };

/** RFC 4515 §3: a value inside a search filter, with the characters that would change the filter escaped. */
export function escapeFilterValue(v: string): string {
  return v.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** RFC 4514 §2.4: a value inside a DN (UserDNPattern). */
export function escapeDnValue(v: string): string {
  return v.replace(/[\\,+"<>;=\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`).replace(/^[ #]|[ ]$/g, (c) => `\\${c.charCodeAt(0).toString(16)}`);
}

function first(v: Buffer | Buffer[] | string[] | string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return String(v);
}

function all(v: Buffer | Buffer[] | string[] | string | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/**
 * A read-only LDAP user store ([user_store] type = "read_only_ldap", the [user_store.properties] keys of the
 * catalog), through ldapts. A user is found with the service account (ConnectionName/ConnectionPassword) by
 * UserNameSearchFilter (`?` is the user name, escaped per RFC 4515, so `*` or `)(` in a name cannot widen
 * the search), then authenticated by a bind as that entry; an empty password is refused before any bind
 * (an empty simple bind is an anonymous bind that succeeds, RFC 4513 §5.1.2). Groups (ReadGroups) whose
 * MembershipAttribute names the user become its roles by GroupNameAttribute. A name that matches nothing
 * still costs a bind, so the answer time does not tell unknown users apart.
 */
export class LdapUserStore {
  constructor(private readonly v: LdapUserStoreView, private readonly log: Logger) {}

  private async client<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    const c = new Client({ url: this.v.url, timeout: this.v.readTimeoutMs, connectTimeout: this.v.connectTimeoutMs });
    try {
      if (this.v.startTls) await c.startTLS({ rejectUnauthorized: true });
      return await fn(c);
    } finally {
      await c.unbind().catch(() => undefined);
    }
  }

  private unavailable(err: unknown): never {
    if (err instanceof StoreUnavailableError) throw err;
    this.log.error({ err: (err as Error).message, url: this.v.url }, 'the LDAP user store cannot be used');
    throw new StoreUnavailableError(`the LDAP user store at ${this.v.url} cannot be used: ${(err as Error).message}`, err);
  }

  /** The entry of a user name, found with the service account; undefined when none (or several) match. */
  private async findEntry(c: Client, username: string): Promise<Record<string, unknown> & { dn: string } | undefined> {
    if (this.v.bindDn) await c.bind(this.v.bindDn, this.v.bindPassword ?? '');
    const filter = this.v.userSearchFilter.split('?').join(escapeFilterValue(username));
    const attributes = ['dn', this.v.userNameAttribute, ...Object.keys(CLAIM_ATTRIBUTES), ...(this.v.displayNameAttribute ? [this.v.displayNameAttribute] : ['cn'])];
    const { searchEntries } = await c.search(this.v.userSearchBase, { scope: 'sub', filter, attributes, sizeLimit: 2 });
    if (searchEntries.length !== 1) return undefined;
    return searchEntries[0] as Record<string, unknown> & { dn: string };
  }

  private async userOf(c: Client, username: string, entry: Record<string, unknown> & { dn: string }): Promise<StoreUser> {
    const claims: Record<string, string> = {};
    for (const [attr, claim] of Object.entries(CLAIM_ATTRIBUTES)) {
      const v = first(entry[attr] as string | string[] | undefined);
      if (v) claims[claim] = v;
    }
    const display = first(entry[this.v.displayNameAttribute ?? 'cn'] as string | string[] | undefined);
    if (display) claims['name'] = display;
    let roles: string[] = [];
    if (this.v.readGroups && this.v.groupSearchBase) {
      if (this.v.bindDn) await c.bind(this.v.bindDn, this.v.bindPassword ?? '');
      const filter = `(&${this.v.groupSearchFilter}(${this.v.membershipAttribute}=${escapeFilterValue(entry.dn)}))`;
      const { searchEntries } = await c.search(this.v.groupSearchBase, { scope: 'sub', filter, attributes: [this.v.groupNameAttribute] });
      roles = searchEntries.flatMap((g) => all(g[this.v.groupNameAttribute] as string | string[] | undefined));
    }
    return { username: first(entry[this.v.userNameAttribute] as string | string[] | undefined) ?? username, roles, claims };
  }

  private static plausible(username: string): boolean {
    return username.length > 0 && username.length <= MAX_USERNAME && !/[\0-\x1f]/.test(username);
  }

  async authenticate(username: string, password: string): Promise<StoreUser | undefined> {
    if (!LdapUserStore.plausible(username) || password === '') return undefined;
    try {
      return await this.client(async (c) => {
        const entry = await this.findEntry(c, username);
        const dn = entry?.dn ?? `${this.v.userNameAttribute}=${escapeDnValue(username)},cn=no-such-user,${this.v.userSearchBase}`;
        try {
          await c.bind(dn, password);
        } catch (err) {
          if (err instanceof InvalidCredentialsError || entry === undefined) return undefined;
          throw err;
        }
        return entry ? this.userOf(c, username, entry) : undefined;
      });
    } catch (err) {
      return this.unavailable(err);
    }
  }

  async find(username: string): Promise<StoreUser | undefined> {
    if (!LdapUserStore.plausible(username)) return undefined;
    try {
      return await this.client(async (c) => {
        const entry = await this.findEntry(c, username);
        return entry ? this.userOf(c, username, entry) : undefined;
      });
    } catch (err) {
      return this.unavailable(err);
    }
  }

  async knows(username: string): Promise<boolean> {
    return (await this.find(username)) !== undefined;
  }
}
