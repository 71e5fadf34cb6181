import type { ApplicationDefinition, ApplicationKey, KeyType, SubscriptionDefinition, SubscriptionState, TokenType } from '../registry/types.js';
import type { Db, Queryable } from './db.js';

/** An application or client id is already owned by another source (another file, the admin API). */
export class ApplicationConflictError extends Error {
  readonly code = 'SLUICE_STORE_APPLICATION_CONFLICT';
  constructor(message: string) {
    super(message);
    this.name = 'ApplicationConflictError';
  }
}

interface AppRow { name: string; owner: string; throttling_policy: string; token_type: string; callback_url: string | null; source: string }
interface KeyRow { client_id: string; application: string; key_type: string; client_secret_hash: string; grant_types: string; scopes: string; callback_url: string | null; key_manager?: string | null }
interface SubRow { application: string; api: string; throttling_policy: string; state: string }

const words = (s: string): string[] => s.split(' ').filter(Boolean);

function toKey(r: KeyRow): ApplicationKey {
  return {
    keyType: r.key_type as KeyType,
    clientId: r.client_id,
    clientSecretHash: r.client_secret_hash,
    grantTypes: words(r.grant_types),
    scopes: words(r.scopes),
    ...(r.callback_url ? { callbackUrl: r.callback_url } : {}),
    ...(r.key_manager ? { keyManager: r.key_manager } : {}),
  };
}

function toSub(r: SubRow): SubscriptionDefinition {
  return { api: r.api, throttlingPolicy: r.throttling_policy, state: r.state as SubscriptionState };
}

function toApp(r: AppRow, keys: KeyRow[], subs: SubRow[]): ApplicationDefinition {
  return {
    name: r.name,
    owner: r.owner,
    throttlingPolicy: r.throttling_policy,
    tokenType: r.token_type as TokenType,
    keys: keys.map(toKey),
    subscriptions: subs.map(toSub),
    source: r.source,
  };
}

/** The `applications`, `application_keys` and `subscriptions` tables. */
export class ApplicationTable {
  constructor(private readonly db: Db) {}

  async list(): Promise<ApplicationDefinition[]> {
    const [apps, keys, subs] = await Promise.all([
      this.db.all<AppRow>('SELECT * FROM applications ORDER BY name'),
      this.db.all<KeyRow>('SELECT * FROM application_keys ORDER BY client_id'),
      this.db.all<SubRow>('SELECT * FROM subscriptions ORDER BY api'),
    ]);
    const keysBy = group(keys, (k) => k.application);
    const subsBy = group(subs, (s) => s.application);
    return apps.map((a) => toApp(a, keysBy.get(a.name) ?? [], subsBy.get(a.name) ?? []));
  }

  async get(name: string, q: Queryable = this.db): Promise<ApplicationDefinition | undefined> {
    const app = await q.get<AppRow>('SELECT * FROM applications WHERE name = ?', [name]);
    if (!app) return undefined;
    const keys = await q.all<KeyRow>('SELECT * FROM application_keys WHERE application = ? ORDER BY client_id', [name]);
    const subs = await q.all<SubRow>('SELECT * FROM subscriptions WHERE application = ? ORDER BY api', [name]);
    return toApp(app, keys, subs);
  }

  /** The application that owns a client id, with that key. */
  async findByClientId(clientId: string): Promise<{ app: ApplicationDefinition; key: ApplicationKey } | undefined> {
    const k = await this.db.get<KeyRow>('SELECT * FROM application_keys WHERE client_id = ?', [clientId]);
    if (!k) return undefined;
    const app = await this.get(k.application);
    if (!app) return undefined;
    return { app, key: app.keys.find((x) => x.clientId === clientId)! };
  }

  /** The sealed clear secret kept for a registered client (returned again to its owner), or null. */
  async sealedSecret(clientId: string): Promise<string | null> {
    const r = await this.db.get<{ client_secret_sealed: string | null }>('SELECT client_secret_sealed FROM application_keys WHERE client_id = ?', [clientId]);
    return r?.client_secret_sealed ?? null;
  }

  async setSealedSecret(clientId: string, sealed: string): Promise<void> {
    await this.db.run('UPDATE application_keys SET client_secret_sealed = ? WHERE client_id = ?', [sealed, clientId]);
  }

  async namesBySource(source: string): Promise<string[]> {
    return (await this.db.all<{ name: string }>('SELECT name FROM applications WHERE source = ? ORDER BY name', [source])).map((r) => r.name);
  }

  /**
   * Creates or replaces an application with its keys and subscriptions, in one transaction. Refused when the
   * name belongs to another source (unless `takeOver`) or a client id belongs to another application.
   * Returns the client ids that were removed (their tokens should be revoked).
   */
  async put(app: ApplicationDefinition, { takeOver = false, now = Date.now() } = {}): Promise<{ removedClientIds: string[] }> {
    return this.db.transaction(async (tx) => {
      const existing = await tx.get<AppRow>('SELECT * FROM applications WHERE name = ?', [app.name]);
      if (existing && existing.source !== app.source && !takeOver) {
        throw new ApplicationConflictError(`application "${app.name}" is already defined by ${existing.source}`);
      }
      for (const k of app.keys) {
        const owner = await tx.get<{ application: string }>('SELECT application FROM application_keys WHERE client_id = ?', [k.clientId]);
        if (owner && owner.application !== app.name) {
          throw new ApplicationConflictError(`client_id "${k.clientId}" already belongs to application "${owner.application}"`);
        }
      }
      await tx.run(
        `INSERT INTO applications (name, owner, throttling_policy, token_type, callback_url, source, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, throttling_policy = excluded.throttling_policy,
           token_type = excluded.token_type, callback_url = excluded.callback_url, source = excluded.source, updated_at = excluded.updated_at`,
        [app.name, app.owner, app.throttlingPolicy, app.tokenType, app.keys.find((k) => k.callbackUrl)?.callbackUrl ?? null, app.source, now, now],
      );
      const before = await tx.all<{ client_id: string; key_type: string }>('SELECT client_id, key_type FROM application_keys WHERE application = ?', [app.name]);
      const wanted = new Map(app.keys.map((k) => [k.clientId, k.keyType] as const));
      const removed = before.filter((r) => !wanted.has(r.client_id)).map((r) => r.client_id);
      // Keys that go away or change type are deleted first, so that (application, key_type) stays unique.
      for (const r of before) {
        if (wanted.get(r.client_id) !== r.key_type) await tx.run('DELETE FROM application_keys WHERE client_id = ?', [r.client_id]);
      }
      for (const k of app.keys) {
        await tx.run(
          `INSERT INTO application_keys (client_id, application, key_type, client_secret_hash, grant_types, scopes, callback_url, key_manager, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (client_id) DO UPDATE SET key_type = excluded.key_type, client_secret_hash = excluded.client_secret_hash,
             grant_types = excluded.grant_types, scopes = excluded.scopes, callback_url = excluded.callback_url, key_manager = excluded.key_manager`,
          [k.clientId, app.name, k.keyType, k.clientSecretHash, k.grantTypes.join(' '), k.scopes.join(' '), k.callbackUrl ?? null, k.keyManager ?? null, now],
        );
      }
      await tx.run('DELETE FROM subscriptions WHERE application = ?', [app.name]);
      for (const s of app.subscriptions) {
        await tx.run('INSERT INTO subscriptions (application, api, throttling_policy, state, created_at) VALUES (?, ?, ?, ?, ?)',
          [app.name, s.api, s.throttlingPolicy, s.state, now]);
      }
      return { removedClientIds: removed };
    });
  }

  /** Deletes an application (keys and subscriptions go with it). Returns its client ids, or undefined when absent. */
  async delete(name: string): Promise<string[] | undefined> {
    return this.db.transaction(async (tx) => {
      const keys = (await tx.all<{ client_id: string }>('SELECT client_id FROM application_keys WHERE application = ?', [name])).map((r) => r.client_id);
      const { changes } = await tx.run('DELETE FROM applications WHERE name = ?', [name]);
      return changes > 0 ? keys : undefined;
    });
  }
}

function group<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    let list = m.get(k);
    if (!list) { list = []; m.set(k, list); }
    list.push(r);
  }
  return m;
}
