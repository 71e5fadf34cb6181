import type { ApimStore } from '../../store/index.js';
import { tokenHash } from '../token-crypto.js';
import type { UserStore } from '../user-store/user-store.js';

/** Claims each scope releases (OpenID Connect Core §5.4). */
const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: ['name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website', 'gender',
    'birthdate', 'zoneinfo', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

export type UserInfoResult =
  | { readonly ok: true; readonly claims: Record<string, unknown> }
  | { readonly ok: false; readonly status: 400 | 401 | 403; readonly error: 'invalid_request' | 'invalid_token' | 'insufficient_scope'; readonly description: string };

/** `Authorization: Bearer <token>` (RFC 6750 §2.1); undefined when the header is absent or another scheme. */
export function bearerOf(authorization: string | undefined): string | undefined {
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m ? m[1] : undefined;
}

/**
 * The UserInfo endpoint (OpenID Connect Core §5.3): an access token of this key manager that is active and
 * was granted `openid` yields `sub` and the claims its scopes release (profile, email, address, phone) from
 * the user store. Tokens are looked up in the store by hash, so revoked, replaced and expired ones are
 * refused the moment they are.
 */
export class UserInfo {
  constructor(private readonly store: ApimStore, private readonly users: UserStore, private readonly now: () => number = Date.now) {}

  async claims(token: string | undefined): Promise<UserInfoResult> {
    if (token === undefined || token === '') return { ok: false, status: 401, error: 'invalid_token', description: 'an access token is required (Authorization: Bearer)' };
    const row = await this.store.tokens.findByAccessHash(tokenHash(token));
    if (!row || row.state !== 'ACTIVE' || row.expiresAt <= this.now()) return { ok: false, status: 401, error: 'invalid_token', description: 'the access token is invalid, expired or revoked' };
    const scopes = row.scope.split(' ');
    if (!scopes.includes('openid')) return { ok: false, status: 403, error: 'insufficient_scope', description: 'the access token was not granted the openid scope' };
    const out: Record<string, unknown> = { sub: row.authorizedUser };
    if (row.userType !== 'APPLICATION_USER') return { ok: true, claims: out };
    const user = await this.users.find(row.authorizedUser);
    const released = new Set(scopes.flatMap((s) => SCOPE_CLAIMS[s] ?? []));
    if (released.has('preferred_username')) out['preferred_username'] = row.authorizedUser;
    for (const [k, v] of Object.entries(user?.claims ?? {})) {
      if (!released.has(k)) continue;
      out[k] = k.endsWith('_verified') ? v === 'true' : v;
    }
    return { ok: true, claims: out };
  }
}
