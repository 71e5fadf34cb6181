import { randomUUID } from 'node:crypto';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import type { ApplicationDefinition, KeyType } from '../registry/types.js';
import { NO_EXPIRY, type ApimStore } from '../store/index.js';
import type { SigningKeys } from './signing-keys.js';

/** The claim that tells an API key from an access token (the reference system's `tokenType`). */
export const API_KEY_TOKEN_TYPE = 'apiKey';

export interface IssuedApiKey {
  readonly apikey: string;
  readonly keyId: string;
  /** Seconds of validity; -1: no expiry. */
  readonly validityTime: number;
}

/**
 * API keys (docs/tokens.md, API keys): a JWT signed with the key manager's key, naming the application,
 * its owner and tier and the key type, so that a gateway validates it with the JWKS it already has (no
 * key-manager call). The store keeps each key's id and state; a revocation is published like a token's
 * and survives a restart (a starting gateway loads revoked, unexpired keys).
 */
export class ApiKeys {
  constructor(private readonly o: { store: ApimStore; keys: SigningKeys; issuer: string; bus: EventBus; log: Logger; now?: () => number }) {}

  async issue(app: ApplicationDefinition, keyType: KeyType, validitySeconds: number): Promise<IssuedApiKey> {
    const now = (this.o.now ?? Date.now)();
    const iat = Math.floor(now / 1000);
    const keyId = randomUUID();
    const exp = validitySeconds > 0 ? iat + validitySeconds : undefined;
    const apikey = await this.o.keys.sign({
      iss: this.o.issuer,
      sub: app.owner,
      jti: keyId,
      iat,
      ...(exp !== undefined ? { exp } : {}),
      token_type: API_KEY_TOKEN_TYPE,
      keytype: keyType,
      application: { name: app.name, owner: app.owner, tier: app.throttlingPolicy },
    }, 'JWT');
    await this.o.store.apiKeys.insert({ keyId, application: app.name, keyType, issuedAt: iat * 1000, expiresAt: exp !== undefined ? exp * 1000 : NO_EXPIRY });
    this.o.log.info({ application: app.name, keyType, keyId, validity: validitySeconds > 0 ? validitySeconds : 'none' }, 'API key issued');
    return { apikey, keyId, validityTime: validitySeconds > 0 ? validitySeconds : -1 };
  }

  /** Revokes every key of a removed application (a new application of the same name must not inherit them). */
  async revokeApplication(application: string): Promise<number> {
    const now = (this.o.now ?? Date.now)();
    const revoked = await this.o.store.apiKeys.revokeByApplication(application, now);
    for (const k of revoked) {
      if (k.expiresAt > now) await this.o.bus.publish({ type: 'token.revoked', tokenId: k.keyId, tokenType: 'JWT', expiresAt: k.expiresAt, consumerKey: '', revokedAt: now });
    }
    if (revoked.length) this.o.log.info({ application, keys: revoked.length }, 'API keys of a removed application revoked');
    return revoked.length;
  }

  /** Revokes a key of this application by its id; false when there is no such active key. */
  async revoke(application: string, keyId: string): Promise<boolean> {
    const rec = await this.o.store.apiKeys.get(keyId);
    if (!rec || rec.application !== application) return false;
    const now = (this.o.now ?? Date.now)();
    if (!(await this.o.store.apiKeys.revoke(keyId, now))) return false;
    await this.o.bus.publish({ type: 'token.revoked', tokenId: keyId, tokenType: 'JWT', expiresAt: rec.expiresAt, consumerKey: '', revokedAt: now });
    this.o.log.info({ application, keyId }, 'API key revoked');
    return true;
  }
}
