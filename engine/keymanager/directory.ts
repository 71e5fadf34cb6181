import type { ApplicationDefinition, ApplicationKey } from '../registry/types.js';
import type { ApimStore } from '../store/index.js';
import { verifySecret } from './secret-hash.js';

export interface Client {
  readonly app: ApplicationDefinition;
  readonly key: ApplicationKey;
}

/**
 * Clients (application keys) by client id, read from the store and kept for a short time, so that a burst
 * of token requests does not read the same rows again and again. Changes made through this node (files,
 * registration) clear it at once; changes made by other nodes on a shared database show within `ttl`.
 */
export class ClientDirectory {
  private readonly cache = new Map<string, { client: Client; at: number }>();

  constructor(private readonly store: ApimStore, private readonly ttl = 5000, private readonly now: () => number = Date.now) {}

  async find(clientId: string): Promise<Client | undefined> {
    const hit = this.cache.get(clientId);
    const t = this.now();
    if (hit && t - hit.at < this.ttl) return hit.client;
    const found = await this.store.applications.findByClientId(clientId);
    if (!found) { this.cache.delete(clientId); return undefined; }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(clientId, { client: found, at: t });
    return found;
  }

  /** The client when the secret is right, else undefined (same time cost for an unknown client). */
  async authenticate(clientId: string, secret: string): Promise<Client | undefined> {
    const client = await this.find(clientId);
    if (!client) {
      await verifySecret(secret, DUMMY_HASH, clientId);
      return undefined;
    }
    return (await verifySecret(secret, client.key.clientSecretHash, clientId)) ? client : undefined;
  }

  invalidate(): void {
    this.cache.clear();
  }
}

/** A valid hash of a random value: verifying against it costs what a real verification costs. */
export const DUMMY_HASH = 'scrypt$16384$8$1$c2x1aWNlLWR1bW15LXNhbHQ$2YxB1dRbg1d8Y7u0o0lG7ZxqUO2r0c3p8pA1b6hZk7M';
