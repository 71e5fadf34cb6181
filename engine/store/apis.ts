import type { StoredApiSource } from '../registry/api-registry.js';
import type { ApiDefinition, LifecycleState } from '../registry/types.js';
import type { Db } from './db.js';

interface ApiRow { id: string; definition: string; source: string; created_at: number; updated_at: number }

/** An API of the store with its bookkeeping. */
export interface StoredApi {
  readonly api: ApiDefinition;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Another API already serves this context and version. */
export class ApiConflictError extends Error {
  readonly code = 'SLUICE_STORE_API_CONFLICT';
  constructor(message: string) {
    super(message);
    this.name = 'ApiConflictError';
  }
}

function toApi(r: ApiRow): ApiDefinition {
  return { ...(JSON.parse(r.definition) as ApiDefinition), source: r.source };
}

/** The `apis` table: APIs written through the admin REST API (and the replica of a gateway-worker). */
export class ApiTable implements StoredApiSource {
  constructor(private readonly db: Db) {}

  async list(): Promise<ApiDefinition[]> {
    return (await this.db.all<ApiRow>('SELECT id, definition, source, created_at, updated_at FROM apis ORDER BY id')).map(toApi);
  }

  async listStored(): Promise<StoredApi[]> {
    const rows = await this.db.all<ApiRow>('SELECT id, definition, source, created_at, updated_at FROM apis ORDER BY id');
    return rows.map((r) => ({ api: toApi(r), createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) }));
  }

  async get(id: string): Promise<ApiDefinition | undefined> {
    const r = await this.db.get<ApiRow>('SELECT id, definition, source, created_at, updated_at FROM apis WHERE id = ?', [id]);
    return r ? toApi(r) : undefined;
  }

  /** Creates or replaces the API `api.id`. Throws ApiConflictError when another API has its context and version. */
  async put(api: ApiDefinition, now = Date.now()): Promise<void> {
    await this.db.transaction(async (tx) => {
      const clash = await tx.get<{ id: string }>('SELECT id FROM apis WHERE context = ? AND version = ? AND id <> ?', [api.context, api.version, api.id]);
      if (clash) throw new ApiConflictError(`the API ${clash.id} already serves ${api.context}/${api.version}`);
      await tx.run(
        `INSERT INTO apis (id, name, version, context, lifecycle_state, definition, source, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, version = excluded.version, context = excluded.context,
           lifecycle_state = excluded.lifecycle_state, definition = excluded.definition, source = excluded.source, updated_at = excluded.updated_at`,
        [api.id, api.name, api.version, api.context, api.lifecycleState, JSON.stringify(api), api.source, now, now],
      );
    });
  }

  async setLifecycle(id: string, state: LifecycleState, now = Date.now()): Promise<ApiDefinition | undefined> {
    const current = await this.get(id);
    if (!current) return undefined;
    const next: ApiDefinition = { ...current, lifecycleState: state };
    await this.put(next, now);
    return next;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM apis WHERE id = ?', [id])).changes > 0;
  }

  /** Replaces every API at once (a gateway-worker's replica after a full pull). */
  async replaceAll(apis: readonly ApiDefinition[], now = Date.now()): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM apis');
      const seen = new Set<string>();
      for (const api of apis) {
        const key = `${api.context}\u0000${api.version}`;
        if (seen.has(key)) continue;
        seen.add(key);
        await tx.run(
          `INSERT INTO apis (id, name, version, context, lifecycle_state, definition, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [api.id, api.name, api.version, api.context, api.lifecycleState, JSON.stringify(api), api.source, now, now],
        );
      }
    });
  }
}
