import {
  apimDbView, authenticationView, eventHubView, eventRedisView, keyManagerAccessView, superAdminView,
} from '../../../conf/typed-config.js';
import { EventHub } from '../../controlplane/event-hub.js';
import { AuthBackoff } from '../../keymanager/auth-backoff.js';
import { hashingStats, limitHashing } from '../../keymanager/secret-hash.js';
import { startKeyManager } from '../../keymanager/start.js';
import { ensureSuperAdminPassword } from '../../keymanager/super-admin-password.js';
import { UserDirectory } from '../../keymanager/users.js';
import { openStore, PostgresDb } from '../../store/index.js';
import type { NodeState } from './node-state.js';

const one = (value: number): { labels: Record<string, string>; value: number }[] => [{ labels: {}, value }];

/**
 * The roles that keep the apim_db store (key manager, control plane): the store, the key manager's token
 * service, the user directory (the key manager's, or one of its own on a control plane without it) and the
 * event hub gateways follow, each with its metrics.
 */
export async function openStoreRoles(n: NodeState): Promise<void> {
  const r = n.roles;
  if (r.keyManager || r.controlPlane) {
    const view = apimDbView(n.config);
    const s = await openStore(view, n.log.child({ component: 'store' }));
    n.store = s;
    n.userStore = s;
    n.stops.push(() => s.close());
    n.dataSources.push({ name: 'jdbc/WSO2AM_DB', aliases: ['apim_db', 'WSO2AM_DB'], db: s.db, validationQuery: view.kind === 'postgres' ? view.validationQuery : 'SELECT 1' });
  }
  if (r.keyManager) {
    const km = await startKeyManager(n.config, n.log, n.bus, { servlet: n.servlet, tls: n.tls, store: n.store! });
    n.km = km;
    n.stops.push(() => km.stop());
  }
  const store = n.store;
  if (store === null) return;
  n.users = n.km ? n.km.directory : await ownUserDirectory(n);
  authMetrics(n);
  const hub = new EventHub(store, n.bus, eventHubView(n.config), n.log.child({ component: 'event-hub' }));
  await hub.start(eventRedisView(n.config));
  hub.mount(n.servlet, n.users);
  n.prestops.push(() => hub.close());
  n.telemetry.metrics.gauge('sluice_event_hub_waiting_requests', 'Gateway long polls waiting for events', () => one(hub.waiting));
  n.telemetry.metrics.gauge('sluice_event_hub_journaled_events', 'Events this node appended to the journal since start', () => one(hub.appended));
  if (store.db instanceof PostgresDb) {
    const db = store.db;
    n.telemetry.metrics.gauge('sluice_store_connections', 'apim_db PostgreSQL pool connections by state', () => {
      const st = db.poolStats();
      return [{ labels: { state: 'active' }, value: st.total - st.idle }, { labels: { state: 'idle' }, value: st.idle }, { labels: { state: 'waiting' }, value: st.waiting }, { labels: { state: 'max' }, value: st.max }];
    });
  }
}

/** A control plane without the key manager: its own user directory, with the generated administrator password. */
async function ownUserDirectory(n: NodeState): Promise<UserDirectory> {
  const authentication = authenticationView(n.config);
  limitHashing(authentication);
  ensureSuperAdminPassword(superAdminView(n.config), n.log);
  const users = new UserDirectory(n.store!, new AuthBackoff(authentication));
  await users.ensureSuperAdmin(keyManagerAccessView(n.config).superAdmin, n.log);
  return users;
}

function authMetrics(n: NodeState): void {
  const backoff = n.users!.backoff;
  const m = n.telemetry.metrics;
  m.counter('sluice_auth_failures_total', 'Failed client and user authentications (token endpoint, admin API, internal endpoints)', () => one(backoff.failures));
  m.counter('sluice_auth_backoff_refusals_total', 'Authentications refused with 429 while their identity and address were backed off (no secret checked)', () => one(backoff.refused));
  m.gauge('sluice_auth_backoff_identities', 'Identities and client addresses with failed authentications remembered', () => one(backoff.size));
  m.gauge('sluice_auth_hashes_active', 'Password and client secret verifications (scrypt) running', () => one(hashingStats().active));
  m.gauge('sluice_auth_hashes_queued', 'Password and client secret verifications waiting for a slot', () => one(hashingStats().queued));
  m.counter('sluice_auth_hashes_refused_total', 'Verifications refused at the hashing bound (503)', () => one(hashingStats().refused));
}
