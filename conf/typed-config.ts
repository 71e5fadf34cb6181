/**
 * Typed views over the configuration: each subsystem reads the keys it needs through a view function in
 * conf/views/, so that every key read is checked against the catalog at compile time and listed in one
 * place per concern. A view returns plain data (it can be posted to an io thread).
 */
import type { Config } from './config.js';
import { roles, ports, logView } from './views/server.js';
import { listenerTls, senderTls } from './views/tls.js';
import { passthruView, passthruListeners, senderProxies } from './views/passthru.js';
import { mediationView } from './views/mediation.js';
import { oauthView, tokenPersistenceView, keyManagerAccessView, servletView, revocationView, authenticationView } from './views/keymanager.js';
import { apimDbView } from './views/store.js';
import { corsView, backendJwtView, mutualSslView, transportHeadersView, tokenValidationView, graphqlView } from './views/security.js';
import { healthCheckView, accessLogView, analyticsView, tracingView, metricsView } from './views/operations.js';
import { eventHubView, artifactSyncView, gatewayNotificationView, gatewayEnvironments, eventRedisView, adminApiView } from './views/control-plane.js';
import { throttlingView } from './views/throttling.js';
import { redisView } from './views/redis.js';
import { websocketView } from './views/websocket.js';
import { authorizationView, externalIssuersView, ldapUserStoreView } from './views/identity.js';

export * from './views/server.js';
export * from './views/tls.js';
export * from './views/passthru.js';
export * from './views/mediation.js';
export * from './views/keymanager.js';
export * from './views/store.js';
export * from './views/security.js';
export * from './views/operations.js';
export * from './views/control-plane.js';
export * from './views/throttling.js';
export * from './views/redis.js';
export * from './views/websocket.js';
export * from './views/identity.js';

/** Every view, built once: check-config uses it to find keys the operator set that nothing reads. */
const ALL_VIEWS: readonly ((c: Config) => unknown)[] = [
  roles, ports, logView, listenerTls, senderTls, passthruView, passthruListeners, senderProxies, mediationView,
  oauthView, tokenPersistenceView, keyManagerAccessView, servletView, revocationView, authenticationView, apimDbView,
  corsView, backendJwtView, mutualSslView, transportHeadersView, tokenValidationView, graphqlView,
  healthCheckView, accessLogView, analyticsView, tracingView, metricsView,
  eventHubView, artifactSyncView, gatewayNotificationView, gatewayEnvironments, eventRedisView, adminApiView,
  throttlingView, redisView, websocketView,
  authorizationView, externalIssuersView, ldapUserStoreView,
];

export function buildAllViews(config: Config): void {
  for (const view of ALL_VIEWS) view(config);
}

/** Keys the operator wrote that no part of Sluice reads: accepted for compatibility, without effect. */
export function unusedKeys(config: Config): string[] {
  buildAllViews(config);
  return config.writtenButUnread();
}
