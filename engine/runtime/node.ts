import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { ConfigError, formatIssue } from '../../conf/errors.js';
import { loadConfig } from '../../conf/loader.js';
import {
  apimDbView, artifactSyncView, authenticationView, eventHubView, eventRedisView, gatewayNotificationView, healthCheckView, hostname,
  keyManagerAccessView, logView, passthruListeners, ports, roles, senderTls, superAdminView, tokenValidationView,
} from '../../conf/typed-config.js';
import { createLogger, setLogLevel } from '../log/logger.js';
import { LocalEventBus, type EventBus } from '../events/event-bus.js';
import { startGateway, listenerTlsMaterial, type RunningGateway } from './gateway-role.js';
import type { GatewayExtension } from '../kernel/extension.js';
import { startKeyManager, type RunningKeyManager } from '../keymanager/start.js';
import { UserDirectory } from '../keymanager/users.js';
import { AuthBackoff } from '../keymanager/auth-backoff.js';
import { hashingStats, limitHashing } from '../keymanager/secret-hash.js';
import { ensureSuperAdminPassword } from '../keymanager/super-admin-password.js';
import { servletFromConfig, HttpError, type ServletServer, type ServletAddresses } from '../servlet/index.js';
import { openStore, PostgresDb, type ApimStore } from '../store/index.js';
import { ApiRegistry } from '../registry/api-registry.js';
import { EventHub } from '../controlplane/event-hub.js';
import { startControlPlane, type RunningControlPlane } from '../controlplane/start.js';
import { ArtifactSync } from '../sync/artifact-sync.js';
import { ControlPlaneClient, controlPlaneBase } from '../sync/control-plane-client.js';
import { GatewayNotifier, HttpGatewayNotifications, gatewayId } from '../sync/gateway-notifier.js';
import { openReplica } from '../sync/replica.js';
import { TelemetryHub } from '../operations/telemetry-hub.js';
import { mountHealthRoutes, type DataSource } from '../operations/health.js';
import { LIVE_SECTIONS, changedKeys, classify, type ReloadReport } from '../operations/reload.js';
import { LOG_LEVEL_STATE_KEY, TELEMETRY_STATE_KEY } from '../gateway/telemetry/types.js';
import { WebSocketExtension } from '../websocket/websocket-extension.js';
import { loadTrustedCertificates } from '../../transport/tls/key-store.js';
import { SecurityExtension, remoteIssuer, remoteJwks, type SecuritySources } from '../security/security-extension.js';
import { startPizzaBackend } from '../sample/pizza-backend.js';
import { removeGeneratedFiles } from '../../transport/tls/server-tls.js';
import { warnWhenFdsDoNotFit } from './fd-budget.js';
import { ThrottlingExtension } from '../throttling/extension.js';
import { startTrafficManager } from '../throttling/traffic-manager.js';

export interface NodeOptions {
  readonly sampleBackend?: boolean;
  /** Stop on SIGINT/SIGTERM and reload on SIGHUP (the CLI); tests stop and reload the node themselves. */
  readonly handleSignals?: boolean;
  /** Log to this logger instead of the configured one (tests). */
  readonly log?: Logger;
}

export interface RunningNode {
  /** Resolves with the exit code once the node has stopped. */
  readonly closed: Promise<number>;
  readonly gateway: RunningGateway | null;
  readonly keyManager: RunningKeyManager | null;
  readonly controlPlane: RunningControlPlane | null;
  /** The servlet server every role mounts on (token, admin API, health, metrics). */
  readonly servlet: ServletServer;
  readonly servletAddresses: ServletAddresses;
  /** The apim_db store, or a gateway-worker's replica of the control plane's artifacts; null without either. */
  readonly store: ApimStore | null;
  readonly bus: EventBus;
  readonly telemetry: TelemetryHub;
  readonly apis: ApiRegistry | null;
  readonly sync: ArtifactSync | null;
  readonly notifier: GatewayNotifier | null;
  /** Re-reads deployment.toml and applies what can change live (what SIGHUP does). */
  reload(): Promise<ReloadReport>;
  stop(): Promise<void>;
}

/**
 * One Sluice process: the roles server.server_role selects (docs/operations.md), until SIGINT or SIGTERM.
 *
 *   every role        the servlet server ([transport.https.properties] 9443, [transport.http.properties] 9763):
 *                     health (/api/health-check/v1.0/health, /health/live, /health/ready), GET /metrics;
 *                     the telemetry hub (access log, analytics, tracing, metrics)
 *   store roles       (key manager, control plane) the apim_db store and the event hub (journal, /internal/data/v1/events)
 *   key manager       token, revoke, introspect, JWKS, client registration
 *   control plane     admin REST API, runtime artifacts, gateway directory
 *   gateway           io threads on the pass-through ports; APIs from the files and the store; on a
 *                     gateway-worker, the store is a replica kept by ArtifactSync from the control plane
 */
export async function startNode(initialConfig: Config, opts: NodeOptions = {}): Promise<RunningNode> {
  let config = initialConfig;
  const log = opts.log ?? createLogger({ ...logView(config), thread: 'main' });
  for (const w of config.warnings) log.warn(formatIssue(w));
  const r = roles(config);
  const p = ports(config);
  log.info({ role: r.role, home: config.home.root, offset: p.offset }, 'starting');
  const bus = new LocalEventBus();
  const stops: (() => Promise<void> | void)[] = [];
  /** Run first on stop: they release requests the servlet would otherwise wait for (long polls). */
  const prestops: (() => Promise<void> | void)[] = [];
  let gateway: RunningGateway | null = null;
  let km: RunningKeyManager | null = null;
  let cp: RunningControlPlane | null = null;
  let store: ApimStore | null = null;
  let apis: ApiRegistry | null = null;
  let sync: ArtifactSync | null = null;
  let notifier: GatewayNotifier | null = null;
  let servletAddresses: ServletAddresses = {};
  let ready = false;
  let stopping = false;
  const notReady: string[] = ['starting'];

  // SIGINT / SIGTERM are handled from the start: one arriving while the roles start stops the node once they have.
  let stopAsked = false;
  let onStopSignal: (() => void) | null = null;
  let keepAlive: NodeJS.Timeout | null = null;
  if (opts.handleSignals !== false) {
    const onSignal = (sig: string): void => {
      log.info({ signal: sig }, 'stopping: finishing calls in flight');
      if (onStopSignal) onStopSignal(); else stopAsked = true;
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    // A file reaching the file size limit (ulimit -f) must fail its write (EFBIG, handled like a full disk),
    // not kill the process with SIGXFSZ's default action.
    process.on('SIGXFSZ', () => {});
    keepAlive = setInterval(() => {}, 1 << 30);
  }

  const telemetry = new TelemetryHub(log);
  telemetry.configure(config);
  stops.push(() => telemetry.close());
  // Gateway subsystems that keep io-thread state current (security, throttling...) are added here.
  const extensions: GatewayExtension[] = [{
    name: 'telemetry',
    initialState: () => ({ [TELEMETRY_STATE_KEY]: telemetry.settings(), [LOG_LEVEL_STATE_KEY]: logView(config).level }),
  }];

  if (opts.sampleBackend) {
    const sample = await startPizzaBackend();
    log.info({ url: `http://127.0.0.1:${sample.port}/pizzashack/v1/menu` }, 'sample pizza backend listening');
    stops.push(() => sample.close());
  }

  const tls = listenerTlsMaterial(config, log);
  const servlet = servletFromConfig(config, log.child({ component: 'servlet' }), { tls }).server;
  servlet.observe((rec) => telemetry.onServletRequest(rec));
  telemetry.metrics.gauge('sluice_servlet_connections', 'Connections open on the servlet ports (at most [transport.http(s).properties] maxConnections each)',
    async () => (await servlet.connections()).map((c) => ({ labels: { port: c.port }, value: c.open })));
  telemetry.metrics.counter('sluice_servlet_connections_dropped_total', 'Connections closed at accept because a servlet port held maxConnections',
    () => [{ labels: {}, value: servlet.droppedConnections }]);
  warnWhenFdsDoNotFit(config, log);
  let servletStarted = false;

  const dataSources: DataSource[] = [];
  let userStore: ApimStore | null = null;
  servlet.route('GET', '/metrics', async () => {
    if (!telemetry.metricsEnabled) throw new HttpError(404, 'metrics are disabled ([sluice.metrics] enable = false)');
    await gateway?.threads.flushTelemetry(500);
    return { status: 200, headers: { 'content-type': telemetry.metrics.contentType, 'cache-control': 'no-store' }, body: await telemetry.metrics.text() };
  });
  mountHealthRoutes(servlet, {
    view: () => healthCheckView(config),
    dataSources: () => dataSources,
    hasUserStore: () => userStore !== null,
    eventSync: () => sync?.eventMode() ?? null,
    async probeUserStore() {
      if (!userStore) throw new Error('no user store on this node');
      await userStore.users.get(keyManagerAccessView(config).superAdmin.username);
    },
    readiness: () => {
      const down = gateway?.threads.down ?? [];
      // The apim_db store failing (a full disk, PostgreSQL gone): no token can be issued, no admin change saved.
      const storeProblem = userStore?.db.availability.problem ?? null;
      const reasons = stopping ? ['stopping'] : [...notReady, ...down.map((i) => `io thread ${i} is down (restarting)`)];
      if (!stopping && storeProblem !== null) reasons.push(`the apim_db store is unavailable: ${storeProblem.message}`);
      return { ready: ready && !stopping && down.length === 0 && storeProblem === null, reasons };
    },
  });

  try {
    // ---- the store and the roles that need it
    if (r.keyManager || r.controlPlane) {
      const view = apimDbView(config);
      const s = await openStore(view, log.child({ component: 'store' }));
      store = s;
      userStore = s;
      stops.push(() => s.close());
      dataSources.push({ name: 'jdbc/WSO2AM_DB', aliases: ['apim_db', 'WSO2AM_DB'], db: s.db, validationQuery: view.kind === 'postgres' ? view.validationQuery : 'SELECT 1' });
    }
    if (r.keyManager) {
      km = await startKeyManager(config, log, bus, { servlet, tls, store: store! });
      const k = km;
      stops.push(() => k.stop());
    }
    let users: UserDirectory | null = null;
    if (store) {
      if (km) {
        users = km.directory;
      } else {
        const authentication = authenticationView(config);
        limitHashing(authentication);
        ensureSuperAdminPassword(superAdminView(config), log);
        users = new UserDirectory(store, new AuthBackoff(authentication));
        await users.ensureSuperAdmin(keyManagerAccessView(config).superAdmin, log);
      }
      const backoff = users.backoff;
      const one = (value: number): { labels: Record<string, string>; value: number }[] => [{ labels: {}, value }];
      telemetry.metrics.counter('sluice_auth_failures_total', 'Failed client and user authentications (token endpoint, admin API, internal endpoints)', () => one(backoff.failures));
      telemetry.metrics.counter('sluice_auth_backoff_refusals_total', 'Authentications refused with 429 while their identity and address were backed off (no secret checked)', () => one(backoff.refused));
      telemetry.metrics.gauge('sluice_auth_backoff_identities', 'Identities and client addresses with failed authentications remembered', () => one(backoff.size));
      telemetry.metrics.gauge('sluice_auth_hashes_active', 'Password and client secret verifications (scrypt) running', () => one(hashingStats().active));
      telemetry.metrics.gauge('sluice_auth_hashes_queued', 'Password and client secret verifications waiting for a slot', () => one(hashingStats().queued));
      telemetry.metrics.counter('sluice_auth_hashes_refused_total', 'Verifications refused at the hashing bound (503)', () => one(hashingStats().refused));
      const hub = new EventHub(store, bus, eventHubView(config), log.child({ component: 'event-hub' }));
      await hub.start(eventRedisView(config));
      hub.mount(servlet, users);
      prestops.push(() => hub.close());
      telemetry.metrics.gauge('sluice_event_hub_waiting_requests', 'Gateway long polls waiting for events', () => [{ labels: {}, value: hub.waiting }]);
      telemetry.metrics.gauge('sluice_event_hub_journaled_events', 'Events this node appended to the journal since start', () => [{ labels: {}, value: hub.appended }]);
      if (store.db instanceof PostgresDb) {
        const db = store.db;
        telemetry.metrics.gauge('sluice_store_connections', 'apim_db PostgreSQL pool connections by state', () => {
          const st = db.poolStats();
          return [{ labels: { state: 'active' }, value: st.total - st.idle }, { labels: { state: 'idle' }, value: st.idle }, { labels: { state: 'waiting' }, value: st.waiting }, { labels: { state: 'max' }, value: st.max }];
        });
      }
    }

    // ---- a gateway-worker's replica and its control plane
    const hubView = eventHubView(config);
    const senderTrust = senderTls(config);
    let client: ControlPlaneClient | null = null;
    if (r.gateway && !store) {
      const replica = await openReplica(config.home.root, log.child({ component: 'replica' }));
      store = replica;
      stops.push(() => replica.close());
      dataSources.push({ name: 'gateway_replica', aliases: ['replica'], db: replica.db, validationQuery: 'SELECT 1' });
      if (hubView.enabled && hubView.serviceUrl) {
        const ca = senderTrust.trustStore ? loadTrustedCertificates(senderTrust.trustStore) : undefined;
        const common = { username: hubView.username, password: hubView.password, ca, hostnameVerifier: senderTrust.hostnameVerifier, log };
        const urls = [hubView.serviceUrl, ...hubView.duplicateUrls].map(controlPlaneBase);
        const c = new ControlPlaneClient({ ...common, urls });
        client = c;
        const listening = hubView.listeningEndpoints.filter((u) => /^https?:/i.test(u)).map(controlPlaneBase);
        const eventsClient = listening.length ? new ControlPlaneClient({ ...common, urls: listening }) : c;
        stops.push(async () => { await c.close(); if (eventsClient !== c) await eventsClient.close(); });
        const s = new ArtifactSync({
          client: c, eventsClient, replica, bus, hub: hubView, sync: artifactSyncView(config), redis: eventRedisView(config),
          log: log.child({ component: 'sync' }),
        });
        sync = s;
        prestops.push(() => s.stop());
        telemetry.metrics.gauge('sluice_sync_revision', 'The control plane event revision this gateway has applied', () => [{ labels: {}, value: s.revision }]);
        telemetry.metrics.gauge('sluice_sync_last_success_seconds', 'When this gateway last synchronised with the control plane (epoch seconds, 0: never)', () => [{ labels: {}, value: s.lastSyncAt / 1000 }]);
      } else if (r.role === 'gateway-worker') {
        log.warn('gateway-worker without [apim.event_hub] service_url: serving the local API files only (no control plane)');
      }
    }

    // ---- the APIs (files and store) and the control plane
    if (r.gateway || r.controlPlane) {
      const a = new ApiRegistry({ dir: config.home.apisDir, store, bus, log });
      apis = a;
      stops.push(() => a.stop());
    }
    if (r.controlPlane) {
      await apis!.start();
      cp = await startControlPlane({ config, log, bus, store: store!, servlet, users: users!, apis: apis!, keyManager: km });
      const c = cp;
      stops.push(() => c.stop());
      telemetry.metrics.gauge('sluice_gateways', 'Gateways registered with this control plane, by status', async () => {
        const list = await c.gateways.list();
        return ['ACTIVE', 'EXPIRED'].map((status) => ({ labels: { status }, value: list.filter((g) => g.status === status).length }));
      });
    }

    // ---- the servlet ports open once every route is mounted
    servletAddresses = await servlet.start();
    servletStarted = true;
    stops.push(() => servlet.stop());
    log.info({ https: servletAddresses.https, http: servletAddresses.http }, 'servlet listening');
    if (km) log.info({ https: servletAddresses.https, http: servletAddresses.http }, 'key manager listening');

    if (r.gateway) {
      if (sync) {
        notReady.splice(0, notReady.length, 'pulling the runtime artifacts from the control plane');
        await sync.initial();
      }
      if (!r.controlPlane) await apis!.start();
      const nv = gatewayNotificationView(config);
      const transport = cp ? cp.gateways : client ? new HttpGatewayNotifications(client) : null;
      if (nv.enabled && transport) {
        const listeners = passthruListeners(config);
        notifier = new GatewayNotifier(transport, {
          gatewayId: gatewayId(nv, config.home.root),
          labels: artifactSyncView(config).labels,
          host: hostname(config),
          role: r.role,
          properties: {
            ...(listeners.http.enabled ? { httpPort: listeners.http.port } : {}),
            ...(listeners.https.enabled ? { httpsPort: listeners.https.port } : {}),
            ...(servletAddresses.https !== undefined ? { servletHttpsPort: servletAddresses.https } : {}),
            pid: process.pid,
            startedAt: new Date().toISOString(),
          },
        }, nv, log.child({ component: 'gateway-notification' }));
      }
      // Gateway extensions (security, throttling...) are added to `extensions` before this line: `store`
      // (apim_db, or a gateway-worker's replica kept current by ArtifactSync) and `bus` are ready here.
      extensions.push(new SecurityExtension(config, log, bus, securitySources(config, km, store!), tls));
      // Throttling: policies (the files, and the store's through the admin API), shared counters, Redis sync.
      const throttling = new ThrottlingExtension(config, log, bus);
      extensions.push(throttling);
      stops.push(await followStorePolicies(store!, throttling, bus));
      extensions.push(new WebSocketExtension(config.home.policiesDir, log));
      const n = notifier;
      gateway = await startGateway(config, log, tls, extensions, {
        apis: apis!,
        onTelemetry: (b) => telemetry.onBatch(b),
        onApisDeployed: (list) => n?.deployed(list),
      });
      const g = gateway;
      stops.push(() => g.stop());
      telemetry.metrics.counter('sluice_io_thread_restarts_total', 'io threads that died (an uncaught exception, a crash) and were restarted', () => [{ labels: {}, value: g.threads.deaths }]);
      if (n) {
        n.start(apis!.list());
        prestops.push(() => n.stop());
      }
      if (sync) {
        await sync.replayRevocations();
        await sync.start();
      }
    } else if (r.trafficManager) {
      const tm = await startTrafficManager(config, log, bus);
      stops.push(() => tm.stop());
    }
  } catch (err) {
    log.fatal((err as Error).message);
    for (const s of [...prestops.reverse(), ...stops.reverse()]) await Promise.resolve().then(s).catch(() => {});
    if (!servletStarted) removeGeneratedFiles(tls);
    log.flush();
    if (keepAlive) clearInterval(keepAlive);
    throw err;
  }
  stops.push(() => { if (!gateway) removeGeneratedFiles(tls); });
  ready = true;
  notReady.length = 0;

  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((res) => { resolveClosed = res; });
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    for (const s of [...prestops.reverse(), ...stops.reverse()]) {
      try { await s(); } catch (err) { log.error({ err: (err as Error).message }, 'error while stopping'); }
    }
    log.info('stopped');
    log.flush();
    if (keepAlive) clearInterval(keepAlive);
    resolveClosed(0);
  };
  onStopSignal = () => { void stop(); };

  let reloading: Promise<ReloadReport> | null = null;
  const reload = (): Promise<ReloadReport> => {
    reloading ??= doReload().finally(() => { reloading = null; });
    return reloading;
  };
  const doReload = async (): Promise<ReloadReport> => {
    let next: Config;
    try {
      next = loadConfig(config.home.root);
    } catch (err) {
      const why = err instanceof ConfigError ? err.issues.map(formatIssue).join('; ') : (err as Error).message;
      log.error({ file: config.file }, `reload refused: the configuration is not valid; the running one stays (${why})`);
      return { error: why, applied: [], restartRequired: [] };
    }
    const sections = [...LIVE_SECTIONS, ...extensions.flatMap((e) => e.liveSections ?? [])];
    const report = classify(changedKeys(config, next), sections);
    config = next;
    setLogLevel(log, logView(next).level);
    const settings = telemetry.configure(next);
    telemetry.reopen();
    if (gateway) {
      await gateway.threads.pushState(TELEMETRY_STATE_KEY, settings);
      await gateway.threads.pushState(LOG_LEVEL_STATE_KEY, logView(next).level);
    }
    cp?.reconfigure(next);
    notifier?.reconfigure(gatewayNotificationView(next));
    for (const e of extensions) {
      try { await e.reload?.(next); } catch (err) { log.error({ extension: e.name, err: (err as Error).message }, 'an extension failed to apply the reloaded configuration'); }
    }
    log.info({ applied: report.applied, restartRequired: report.restartRequired }, 'configuration reloaded');
    if (report.restartRequired.length) log.warn({ keys: report.restartRequired }, 'these changed keys take effect at the next restart');
    return report;
  };

  if (opts.handleSignals !== false) {
    const onHup = (): void => { log.info('SIGHUP: reloading deployment.toml'); void reload(); };
    process.on('SIGHUP', onHup);
    void closed.then(() => process.off('SIGHUP', onHup));
  }
  if (stopAsked) void stop();
  return {
    closed, gateway, keyManager: km, controlPlane: cp, servlet, servletAddresses, store, bus, telemetry, apis, sync, notifier,
    reload, stop,
  };
}


/**
 * Where the gateway's security facts come from: the key manager in this process (its keys directly), else
 * its JWKS URL; applications and revocations from the store (apim_db, or a gateway-worker's replica, whose
 * revocations also arrive as events from the control plane).
 */
function securitySources(config: Config, km: RunningKeyManager | null, store: ApimStore): SecuritySources {
  if (km) {
    return {
      loadApplications: () => km.store.applications.list(),
      loadJwks: async () => km.keys.jwks(),
      loadRevoked: () => km.tokens.revokedTokens(),
      jwksRefreshMs: 0,
    };
  }
  const v = tokenValidationView(config);
  const trust = senderTls(config).trustStore;
  return {
    loadApplications: () => store.applications.list(),
    loadJwks: remoteJwks(v.jwksUrl!, trust ? loadTrustedCertificates(trust) : undefined),
    loadIssuer: remoteIssuer(v.jwksUrl!, trust ? loadTrustedCertificates(trust) : undefined),
    loadRevoked: () => store.tokens.listInvalidUnexpired(Date.now()),
    jwksRefreshMs: v.jwksRefreshMs,
  };
}

/**
 * The admin API's door to the throttling policies: what the store holds is merged after the policy files,
 * now and whenever a `registry.changed` of kind `policies` arrives. The extension announces its own
 * deployments with the same event, so an unchanged store is not applied again.
 */
async function followStorePolicies(store: ApimStore, throttling: ThrottlingExtension, bus: EventBus): Promise<() => void> {
  let last = '';
  const load = async (): Promise<void> => {
    const policies = await store.policies.list();
    const blockConditions = await store.policies.listBlockConditions();
    const key = JSON.stringify([policies, blockConditions]);
    if (key === last) return;
    last = key;
    await throttling.setPolicies('store', policies.length || blockConditions.length ? { policies, blockConditions } : null);
  };
  await load();
  return bus.subscribe('registry.changed', (e) => (e.kind === 'policies' ? load() : undefined));
}
