import { artifactSyncView, eventHubView, eventRedisView, senderTls } from '../../../conf/typed-config.js';
import { loadTrustedCertificates } from '../../../transport/tls/key-store.js';
import { ArtifactSync } from '../../sync/artifact-sync.js';
import { ControlPlaneClient, controlPlaneBase } from '../../sync/control-plane-client.js';
import { openReplica } from '../../sync/replica.js';
import type { NodeState } from './node-state.js';

/**
 * A gateway without the store (a gateway-worker): a local replica of the control plane's artifacts, kept
 * current by ArtifactSync through the control plane's event hub ([apim.event_hub]).
 */
export async function followControlPlane(n: NodeState): Promise<void> {
  if (!n.roles.gateway || n.store) return;
  const { config, log } = n;
  const replica = await openReplica(config.home.root, log.child({ component: 'replica' }));
  n.store = replica;
  n.stops.push(() => replica.close());
  n.dataSources.push({ name: 'gateway_replica', aliases: ['replica'], db: replica.db, validationQuery: 'SELECT 1' });
  const hubView = eventHubView(config);
  if (!hubView.enabled || !hubView.serviceUrl) {
    if (n.roles.role === 'gateway-worker') log.warn('gateway-worker without [apim.event_hub] service_url: serving the local API files only (no control plane)');
    return;
  }
  const senderTrust = senderTls(config);
  const ca = senderTrust.trustStore ? loadTrustedCertificates(senderTrust.trustStore) : undefined;
  const common = { username: hubView.username, password: hubView.password, ca, hostnameVerifier: senderTrust.hostnameVerifier, log };
  const c = new ControlPlaneClient({ ...common, urls: [hubView.serviceUrl, ...hubView.duplicateUrls].map(controlPlaneBase) });
  n.client = c;
  const listening = hubView.listeningEndpoints.filter((u) => /^https?:/i.test(u)).map(controlPlaneBase);
  const eventsClient = listening.length ? new ControlPlaneClient({ ...common, urls: listening }) : c;
  n.stops.push(async () => { await c.close(); if (eventsClient !== c) await eventsClient.close(); });
  const s = new ArtifactSync({
    client: c, eventsClient, replica, bus: n.bus, hub: hubView, sync: artifactSyncView(config), redis: eventRedisView(config),
    log: log.child({ component: 'sync' }),
  });
  n.sync = s;
  n.prestops.push(() => s.stop());
  n.telemetry.metrics.gauge('sluice_sync_revision', 'The control plane event revision this gateway has applied', () => [{ labels: {}, value: s.revision }]);
  n.telemetry.metrics.gauge('sluice_sync_last_success_seconds', 'When this gateway last synchronised with the control plane (epoch seconds, 0: never)', () => [{ labels: {}, value: s.lastSyncAt / 1000 }]);
}
