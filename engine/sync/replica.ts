import path from 'node:path';
import type { Logger } from 'pino';
import type { ApplicationDefinition } from '../registry/types.js';
import { ApimStore, SqliteDb, migrate, type RevokedToken } from '../store/index.js';
import type { ArtifactSnapshot } from '../controlplane/protocol.js';

export const REPLICA_FILE = 'repository/database/gateway-replica.sqlite';

/**
 * A gateway-worker's copy of the control plane's runtime artifacts: an ApimStore of its own (SQLite, in
 * the home, whatever [database.apim_db] says), with the same tables, so that every gateway subsystem reads
 * APIs, applications, subscriptions, policies and revocations from "the store" on every node alike. It
 * survives a restart: a gateway whose control plane is down serves what it had.
 */
export async function openReplica(homeRoot: string, log: Logger): Promise<ApimStore> {
  const db = new SqliteDb(path.join(homeRoot, REPLICA_FILE));
  await migrate(db, log);
  return new ApimStore(db);
}

const MARKER_PREFIX = 'replica:';

/** Writes a revoked token into the replica's token table (only its id, type, client and expiry are known). */
export async function markRevoked(store: ApimStore, list: readonly RevokedToken[], now = Date.now()): Promise<void> {
  if (list.length === 0) return;
  await store.db.transaction(async (tx) => {
    for (const r of list) {
      await tx.run(
        `INSERT INTO oauth_tokens (token_id, access_token_hash, access_token, refresh_token_hash, refresh_token, state, token_format, client_id,
           application, key_type, authorized_user, user_type, scope, grant_type, issued_at, expires_at, refresh_expires_at, state_changed_at, parent_token_id)
         VALUES (?, ?, NULL, NULL, NULL, 'REVOKED', ?, ?, '', '', '', 'APPLICATION', '', '', ?, ?, NULL, ?, NULL)
         ON CONFLICT (token_id) DO UPDATE SET state = 'REVOKED', state_changed_at = excluded.state_changed_at`,
        [r.tokenId, `${MARKER_PREFIX}${r.tokenId}`, r.format, r.clientId, now, r.expiresAt, now],
      );
    }
  });
}

async function replaceApplications(store: ApimStore, apps: readonly ApplicationDefinition[], log: Logger): Promise<void> {
  await store.db.run('DELETE FROM applications');
  for (const app of apps) {
    try {
      await store.applications.put(app, { takeOver: true });
    } catch (err) {
      log.error({ application: app.name, err: (err as Error).message }, 'application from the control plane not kept in the replica');
    }
  }
}

/** Applies the parts of a snapshot it carries. Returns the kinds replaced. */
export async function applySnapshot(store: ApimStore, s: ArtifactSnapshot, log: Logger): Promise<('apis' | 'applications' | 'policies')[]> {
  const changed: ('apis' | 'applications' | 'policies')[] = [];
  if (s.apis) { await store.apis.replaceAll(s.apis); changed.push('apis'); }
  if (s.applications) { await replaceApplications(store, s.applications, log); changed.push('applications'); }
  if (s.policies || s.blockConditions) {
    await store.policies.replaceSource('*', s.policies ?? [], s.blockConditions ?? []);
    changed.push('policies');
  }
  if (s.revokedTokens) {
    const now = Date.now();
    await store.db.run(`DELETE FROM oauth_tokens WHERE expires_at <= ?`, [now]);
    await markRevoked(store, s.revokedTokens, now);
  }
  return changed;
}
