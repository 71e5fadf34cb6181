import { randomUUID } from 'node:crypto';
import { UniqueViolationError, type TokenRecord, type UserType } from '../../store/index.js';
import type { Client } from '../directory.js';
import { InvalidGrantError, ServerError } from '../errors.js';
import type { ImplementedGrant } from '../grants/grant-types.js';
import { atHash } from '../oidc/id-token.js';
import { randomToken, tokenHash } from '../token-crypto.js';
import type { TokenServiceOptions } from './options.js';
import { toRevoked, type RevocationEvents } from './revocation-events.js';
import type { StoreGuard } from './store-guard.js';

/** Seed 000, Token response. */
export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly scope: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  /** OpenID Connect: when the granted scopes hold `openid`. */
  readonly id_token?: string;
}

export interface IssueParams {
  readonly client: Client;
  readonly grantType: ImplementedGrant;
  readonly user: string;
  readonly userType: UserType;
  readonly scopes: readonly string[];
  readonly withRefresh: boolean;
  /** Refresh grant: the refresh token being used (its hash). */
  readonly rotate?: string;
  readonly parentTokenId?: string;
  /** OpenID Connect: an id_token goes with the tokens (the scopes hold openid). */
  readonly idToken?: { readonly nonce?: string; readonly authTime?: number };
}

/**
 * Mints the tokens a grant gave (an opaque or a JWT access token, a refresh token, an id_token) and stores
 * them: written through the token writer, or, for a refresh, in place of the refreshed ones. A clash of
 * token keys in the store is retried with new tokens up to oauth.token_generation.retry_count_on_persistence_failures.
 */
export class TokenIssuance {
  private readonly now: () => number;
  private readonly random: () => string;
  private readonly randomId: () => string;

  constructor(private readonly o: TokenServiceOptions, private readonly events: RevocationEvents, private readonly guard: StoreGuard) {
    this.now = o.now ?? Date.now;
    this.random = o.randomToken ?? randomToken;
    this.randomId = o.randomId ?? randomUUID;
  }

  async issue(p: IssueParams): Promise<{ response: TokenResponse; tokenId: string }> {
    const { oauth, retryCount, log } = this.o;
    const validity = p.userType === 'APPLICATION' ? oauth.appAccessTokenValidity : oauth.userAccessTokenValidity;
    for (let attempt = 0; ; attempt++) {
      const now = this.now();
      const minted = await this.mint(p, now, validity);
      try {
        if (p.rotate) {
          const r = await this.o.store.tokens.rotateRefresh(p.rotate, p.client.key.clientId, now, minted.record);
          if (r.kind === 'lost') throw new InvalidGrantError('the refresh token has already been used');
          // The replaced access token stops working with its refresh token.
          if (r.previous.expiresAt > now) await this.events.publish([toRevoked(r.previous)], now);
        } else {
          await this.o.writer.write(minted.record);
        }
        return { response: minted.response, tokenId: minted.record.tokenId };
      } catch (err) {
        if (err instanceof UniqueViolationError) {
          if (attempt < retryCount) {
            log.warn({ attempt: attempt + 1, of: retryCount, client: p.client.key.clientId }, 'token key clash in the store; retrying with a new token');
            continue;
          }
          log.error({ retries: retryCount, client: p.client.key.clientId }, 'token key clash persisted (oauth.token_generation.retry_count_on_persistence_failures)');
          throw new ServerError('the token could not be stored');
        }
        throw this.guard.error(err);
      }
    }
  }

  private async mint(p: IssueParams, now: number, validity: number): Promise<{ record: TokenRecord; response: TokenResponse }> {
    const { app, key } = p.client;
    const iat = Math.floor(now / 1000);
    const exp = iat + validity;
    const scope = p.scopes.join(' ');
    let access: string;
    let tokenId: string;
    if (app.tokenType === 'OPAQUE') {
      access = this.random();
      tokenId = tokenHash(access);
    } else {
      tokenId = this.randomId();
      access = await this.o.keys.sign({
        iss: this.o.oauth.issuer,
        sub: p.user,
        aud: key.clientId,
        azp: key.clientId,
        client_id: key.clientId,
        scope,
        jti: tokenId,
        iat,
        nbf: iat,
        exp,
        aut: p.userType,
        keytype: key.keyType,
        application: { name: app.name, owner: app.owner, tier: app.throttlingPolicy },
        subscriber: app.owner,
      });
    }
    const refresh = p.withRefresh ? this.random() : undefined;
    const refreshExpiresAt = refresh ? now + this.o.oauth.refreshTokenValidity * 1000 : null;
    const record: TokenRecord = {
      tokenId,
      accessTokenHash: tokenHash(access),
      accessTokenStored: this.o.codec.protect(access),
      refreshTokenHash: refresh ? tokenHash(refresh) : null,
      refreshTokenStored: refresh ? this.o.codec.protect(refresh) : null,
      format: app.tokenType,
      clientId: key.clientId,
      application: app.name,
      keyType: key.keyType,
      authorizedUser: p.user,
      userType: p.userType,
      scope,
      grantType: p.grantType,
      issuedAt: iat * 1000,
      expiresAt: exp * 1000,
      refreshExpiresAt,
      state: 'ACTIVE',
      stateChangedAt: null,
      parentTokenId: p.parentTokenId ?? null,
    };
    const idToken = p.idToken ? await this.o.keys.sign({
      iss: this.o.oauth.issuer,
      sub: p.user,
      aud: key.clientId,
      azp: key.clientId,
      iat,
      exp: iat + this.o.authz.idTokenValidity,
      ...(p.idToken.authTime !== undefined ? { auth_time: Math.floor(p.idToken.authTime / 1000) } : {}),
      ...(p.idToken.nonce !== undefined ? { nonce: p.idToken.nonce } : {}),
      at_hash: atHash(access),
    }, 'JWT') : undefined;
    const response: TokenResponse = {
      access_token: access,
      ...(refresh ? { refresh_token: refresh } : {}),
      scope,
      token_type: 'Bearer',
      expires_in: validity,
      ...(idToken ? { id_token: idToken } : {}),
    };
    return { record, response };
  }
}
