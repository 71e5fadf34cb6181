import type { BlockCondition, ThrottlePolicy } from '../registry/types.js';
import type { Db } from './db.js';

/**
 * Throttling policies and block conditions in the apim_db store: what the admin REST API writes (source
 * `admin-api`), what a declarative loader of policies/*.toml may write (source: the file, relative to the
 * home), and what a gateway-worker's replica holds. The throttling engine reads them with `list()` /
 * `listBlockConditions()` when the event bus says `registry.changed` kind `policies`, on every node (a
 * gateway-worker's store is the replica of the control plane's, kept current by engine/sync/).
 */

export type PolicyLevel = ThrottlePolicy['level'];
export const POLICY_LEVELS: readonly PolicyLevel[] = ['subscription', 'application', 'advanced', 'custom'];

/** A block condition as stored: its id (a UUID the admin API gives) and who wrote it. */
export interface BlockConditionRecord extends BlockCondition {
  readonly id: string;
  readonly source: string;
}

interface PolicyRow { level: string; name: string; definition: string; source: string }
interface ConditionRow { id: string; type: string; value: string; enabled: number; invert: number; source: string }

const toPolicy = (r: PolicyRow): ThrottlePolicy => ({ ...(JSON.parse(r.definition) as ThrottlePolicy), level: r.level as PolicyLevel, name: r.name, source: r.source });
const toCondition = (r: ConditionRow): BlockConditionRecord => ({
  id: r.id,
  type: r.type as BlockCondition['type'],
  value: r.value,
  enabled: Number(r.enabled) === 1,
  ...(Number(r.invert) === 1 ? { invert: true } : {}),
  source: r.source,
});

/** The `throttle_policies` and `block_conditions` tables. */
export class PolicyTable {
  constructor(private readonly db: Db) {}

  /** Every policy, or those of one level, ordered by level and name. */
  async list(level?: PolicyLevel): Promise<ThrottlePolicy[]> {
    const rows = level
      ? await this.db.all<PolicyRow>('SELECT level, name, definition, source FROM throttle_policies WHERE level = ? ORDER BY name', [level])
      : await this.db.all<PolicyRow>('SELECT level, name, definition, source FROM throttle_policies ORDER BY level, name');
    return rows.map(toPolicy);
  }

  async get(level: PolicyLevel, name: string): Promise<ThrottlePolicy | undefined> {
    const r = await this.db.get<PolicyRow>('SELECT level, name, definition, source FROM throttle_policies WHERE level = ? AND name = ?', [level, name]);
    return r ? toPolicy(r) : undefined;
  }

  /** Creates or replaces the policy (level, name). */
  async put(p: ThrottlePolicy, now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO throttle_policies (level, name, definition, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (level, name) DO UPDATE SET definition = excluded.definition, source = excluded.source, updated_at = excluded.updated_at`,
      [p.level, p.name, JSON.stringify(p), p.source, now, now],
    );
  }

  async delete(level: PolicyLevel, name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM throttle_policies WHERE level = ? AND name = ?', [level, name])).changes > 0;
  }

  async listBlockConditions(): Promise<BlockConditionRecord[]> {
    return (await this.db.all<ConditionRow>('SELECT id, type, value, enabled, invert, source FROM block_conditions ORDER BY created_at, id')).map(toCondition);
  }

  async getBlockCondition(id: string): Promise<BlockConditionRecord | undefined> {
    const r = await this.db.get<ConditionRow>('SELECT id, type, value, enabled, invert, source FROM block_conditions WHERE id = ?', [id]);
    return r ? toCondition(r) : undefined;
  }

  async putBlockCondition(c: BlockConditionRecord, now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO block_conditions (id, type, value, enabled, invert, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET type = excluded.type, value = excluded.value, enabled = excluded.enabled,
         invert = excluded.invert, source = excluded.source, updated_at = excluded.updated_at`,
      [c.id, c.type, c.value, c.enabled ? 1 : 0, c.invert ? 1 : 0, c.source, now, now],
    );
  }

  async deleteBlockCondition(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM block_conditions WHERE id = ?', [id])).changes > 0;
  }

  /**
   * Makes the store hold exactly these policies and block conditions for one source (a declarative file,
   * or `*` for every source: a gateway-worker's replica), in one transaction.
   */
  async replaceSource(source: string, policies: readonly ThrottlePolicy[], conditions: readonly BlockConditionRecord[], now = Date.now()): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (source === '*') {
        await tx.run('DELETE FROM throttle_policies');
        await tx.run('DELETE FROM block_conditions');
      } else {
        await tx.run('DELETE FROM throttle_policies WHERE source = ?', [source]);
        await tx.run('DELETE FROM block_conditions WHERE source = ?', [source]);
      }
      for (const p of policies) {
        await tx.run(
          `INSERT INTO throttle_policies (level, name, definition, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (level, name) DO UPDATE SET definition = excluded.definition, source = excluded.source, updated_at = excluded.updated_at`,
          [p.level, p.name, JSON.stringify(p), source === '*' ? p.source : source, now, now],
        );
      }
      for (const c of conditions) {
        await tx.run(
          `INSERT INTO block_conditions (id, type, value, enabled, invert, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET type = excluded.type, value = excluded.value, enabled = excluded.enabled,
             invert = excluded.invert, source = excluded.source, updated_at = excluded.updated_at`,
          [c.id, c.type, c.value, c.enabled ? 1 : 0, c.invert ? 1 : 0, source === '*' ? c.source : source, now, now],
        );
      }
    });
  }
}
