import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../log/logger.js';
import type { RevokedToken, TokenRecord } from '../../store/index.js';

/** Tells the gateways that tokens stopped working (`token.revoked`), once the store says so. */
export class RevocationEvents {
  constructor(private readonly bus: EventBus, private readonly log: Logger) {}

  async publish(list: readonly RevokedToken[], now: number): Promise<void> {
    for (const r of list) {
      try {
        await this.bus.publish({ type: 'token.revoked', tokenId: r.tokenId, tokenType: r.format, expiresAt: r.expiresAt, consumerKey: r.clientId, revokedAt: now });
      } catch (err) {
        // The store already says revoked; a gateway that missed the event reloads revokedTokens() on start.
        this.log.error({ err: (err as Error).message, tokenId: r.tokenId }, 'a token.revoked subscriber failed');
      }
    }
  }
}

export function toRevoked(r: TokenRecord): RevokedToken {
  return { tokenId: r.tokenId, format: r.format, clientId: r.clientId, expiresAt: r.expiresAt };
}
