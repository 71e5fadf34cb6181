import type { RevokedToken } from '../../store/index.js';
import { rejectRepeatedParameters } from '../client-auth.js';
import { InvalidRequestError, UnauthorizedClientError } from '../errors.js';
import { tokenHash } from '../token-crypto.js';
import type { CallerAuthentication } from './caller-authentication.js';
import type { TokenServiceOptions } from './options.js';
import { toRevoked, type RevocationEvents } from './revocation-events.js';
import type { StoreGuard } from './store-guard.js';
import { findToken } from './token-lookup.js';

/** The outcome of POST /oauth2/revoke: the seed's headers without the fixed ones. */
export interface RevokeResult {
  readonly authorizedUser: string;
  /** Identifier (jti, or the hash of an opaque token) of the access token revoked. */
  readonly revokedAccessToken?: string;
  /** The refresh token revoked, when the request named one. */
  readonly revokedRefreshToken?: string;
}

/** Tokens made to stop working: asked for by a caller, by a code presented twice, or by a removed client. */
export class TokenRevocation {
  private readonly now: () => number;

  constructor(
    private readonly o: Pick<TokenServiceOptions, 'store' | 'log' | 'now'>,
    private readonly callers: CallerAuthentication,
    private readonly events: RevocationEvents,
    private readonly guard: StoreGuard,
  ) {
    this.now = o.now ?? Date.now;
  }

  /**
   * POST /oauth2/revoke (seed 000 and RFC 7009). Both spaces are searched: the hinted one first (access first
   * without a hint). Seed 000 searches only the hinted space, but RFC 7009 §2.1 says the server MUST extend
   * its search when the hint is wrong: a wrong hint must not leave a token alive (docs/decisions.md).
   * Unknown token: nothing revoked, still a success. A client may
   * revoke only the tokens issued to it (another client's token: unauthorized_client, nothing revoked); an
   * administrator (Basic with a user holding the admin role) may revoke any token.
   */
  async revoke(form: URLSearchParams, authorization: string | undefined, from: string): Promise<RevokeResult> {
    rejectRepeatedParameters(form);
    const caller = await this.callers.caller(form, authorization, from);
    const token = form.get('token');
    if (!token) throw new InvalidRequestError('token is missing');
    const found = await this.guard.run(() => findToken(this.o.store.tokens, tokenHash(token), form.get('token_type_hint')));
    if (!found) return { authorizedUser: caller.name };
    const { row, space } = found;
    if (caller.kind === 'client' && row.clientId !== caller.client.key.clientId) {
      throw new UnauthorizedClientError('the token was not issued to this client');
    }
    const now = this.now();
    const changed = await this.guard.run(() => this.o.store.tokens.revoke(row.tokenId, now));
    if (changed && row.expiresAt > now) await this.events.publish([toRevoked(row)], now);
    this.o.log.info({ tokenId: row.tokenId, client: row.clientId, by: caller.name, space, changed }, 'token revoked');
    return {
      authorizedUser: caller.name,
      revokedAccessToken: row.tokenId,
      ...(space === 'refresh' ? { revokedRefreshToken: token } : {}),
    };
  }

  /** Revokes one issuance by its id (a code presented twice) and tells the gateways. */
  async revokeIssuance(tokenId: string, why: string): Promise<void> {
    const row = await this.guard.run(() => this.o.store.tokens.findById(tokenId));
    if (!row) return;
    const now = this.now();
    const changed = await this.guard.run(() => this.o.store.tokens.revoke(tokenId, now));
    if (changed && row.expiresAt > now) await this.events.publish([toRevoked(row)], now);
    this.o.log.info({ tokenId, client: row.clientId, why, changed }, 'token revoked');
  }

  /** Revokes every active token of these clients (application or key removed) and tells the gateways. */
  async revokeClients(clientIds: readonly string[]): Promise<number> {
    if (clientIds.length === 0) return 0;
    const now = this.now();
    const revoked = await this.guard.run(() => this.o.store.tokens.revokeByClients(clientIds, now));
    await this.events.publish(revoked.filter((r) => r.expiresAt > now), now);
    if (revoked.length) this.o.log.info({ clients: clientIds, tokens: revoked.length }, 'tokens of removed clients revoked');
    return revoked.length;
  }

  /** Access tokens that are not valid any more but have not expired: a starting gateway loads them. */
  async revokedTokens(): Promise<RevokedToken[]> {
    const now = this.now();
    const [tokens, keys] = await Promise.all([
      this.guard.run(() => this.o.store.tokens.listInvalidUnexpired(now)),
      this.guard.run(() => this.o.store.apiKeys.listRevokedUnexpired(now)),
    ]);
    return [...tokens, ...keys.map((k) => ({ tokenId: k.keyId, format: 'JWT' as const, clientId: '', expiresAt: k.expiresAt }))];
  }
}
