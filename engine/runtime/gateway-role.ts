import os from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { graphqlView, hostname, listenerTls, logView, mediationView, passthruListeners, passthruView, senderProxies, senderTls, tokenValidationView, websocketView } from '../../conf/typed-config.js';
import { loadKeyMaterial, loadTrustedCertificates } from '../../transport/tls/key-store.js';
import { prepareServerTls, removeGeneratedFiles, type ServerTlsMaterial } from '../../transport/tls/server-tls.js';
import { ApiRegistry } from '../registry/api-registry.js';
import type { ApiDefinition } from '../registry/types.js';
import { LocalEventBus } from '../events/event-bus.js';
import type { TelemetryBatch } from '../gateway/telemetry/types.js';
import type { GatewayThreadInit } from '../gateway/gateway-thread.js';
import type { IoThreadData } from '../gateway/io-thread-protocol.js';
import { IoThreads, assertPortFree } from './io-threads.js';
import type { GatewayExtension } from '../kernel/extension.js';
import { SequenceRepository, loadCodecs } from '../../mediation/index.js';

export interface GatewayRoleOptions {
  /** The APIs to serve (files and store, engine/registry/api-registry.ts), started by the caller; a files-only one otherwise. */
  readonly apis?: ApiRegistry;
  /** The io threads' telemetry batches. */
  readonly onTelemetry?: (batch: TelemetryBatch) => void;
  /** Every io thread serves this set of APIs now (deployment acknowledgments). */
  readonly onApisDeployed?: (apis: readonly ApiDefinition[]) => void;
}

export interface RunningGateway {
  readonly ports: { readonly http?: number; readonly https?: number };
  readonly threads: IoThreads;
  readonly tls: ServerTlsMaterial | null;
  stop(): Promise<void>;
}

/**
 * The gateway role in the main thread: loads the API definitions (hot-deployed), prepares TLS, starts the
 * io threads and keeps them in step with deployments.
 */
export async function startGateway(config: Config, log: Logger, tls: ServerTlsMaterial | null, extensions: readonly GatewayExtension[] = [], options: GatewayRoleOptions = {}): Promise<RunningGateway> {
  const passthru = passthruView(config);
  const listeners = passthruListeners(config);
  const senderTlsView = senderTls(config);
  const keyStore = senderTlsView.keyStore ? loadKeyMaterial(senderTlsView.keyStore) : undefined;
  const ws = websocketView(config);
  // [transport.wss] sender.trust_store: a bad store stops the start with the file named (key-store.ts errors).
  const wssCa = ws.wssTrustStore ? loadTrustedCertificates(ws.wssTrustStore) : undefined;
  const threads = new IoThreads(log);

  // Before anything starts: a port in use stops the start with nothing left running.
  for (const l of [listeners.http, listeners.https]) if (l.enabled) await assertPortFree(l.bindAddress, l.port);
  threads.onTelemetry = options.onTelemetry ?? null;
  const ownRegistry = options.apis === undefined;
  const apis = options.apis ?? new ApiRegistry({ dir: config.home.apisDir, store: null, bus: new LocalEventBus(), log });
  const initial = ownRegistry ? await apis.start() : apis.list();
  const stopWatchingApis = apis.onChange(async (list) => {
    // Also while every io thread is down: a thread being restarted gets what it missed (io-threads.ts).
    await threads.deployApis(list);
    options.onApisDeployed?.(list);
  });

  const mediation = mediationView(config);
  // Load custom builders/formatters here first, so a bad module stops the start with a clear message.
  const stopApis = (): void => { stopWatchingApis(); if (ownRegistry) apis.stop(); };
  try {
    await loadCodecs(mediation.codecs);
  } catch (err) {
    stopApis();
    throw err;
  }
  const sequences = new SequenceRepository({ dir: mediation.sequencesDir, logger: log });
  sequences.rescan();
  const sequenceWatch = sequences.watch((set) => { void threads.deploySequences(set); });

  const state: Record<string, unknown> = {};
  try {
    for (const ext of extensions) Object.assign(state, await ext.initialState());
  } catch (err) {
    stopApis();
    sequenceWatch.close();
    throw err;
  }
  const init = (index: number, count: number, apiList: readonly ApiDefinition[], threadState: Record<string, unknown>): GatewayThreadInit => ({
    index, threads: count, passthru, listeners, door: passthru.door,
    tls: tls && listeners.https.enabled ? {
      keyPem: tls.keyPem, passphrase: undefined, certPem: tls.certChainPem, caPem: tls.caPem, clientAuth: tls.clientAuth,
      ciphers: tls.ciphers,
      // TLS 1.0 and 1.1 are never offered (RFC 8996), whatever listener.protocols lists (docs/decisions.md).
      minVersion: tls.minVersion === 'TLSv1.3' ? 'TLSv1.3' : 'TLSv1.2',
    } : null,
    sender: {
      socketTimeoutMs: passthru.socketTimeoutMs,
      connectTimeoutMs: passthru.connectTimeoutMs,
      maxConnectionsPerHostPort: passthru.maxConnectionsPerHostPort,
      keepAlive: !passthru.disableConnectionKeepAlive,
      ioBufferSize: passthru.ioBufferSize,
      maxHeaderSize: passthru.maxHeaderSize,
      ca: senderTlsView.trustStore ? loadTrustedCertificates(senderTlsView.trustStore) : undefined,
      hostnameVerifier: senderTlsView.hostnameVerifier,
      clientKeyPem: keyStore?.keyPem,
      clientCertPem: keyStore?.certChainPem,
    },
    proxies: senderProxies(config),
    headers: {
      userAgentPreserve: passthru.userAgentPreserve,
      serverPreserve: passthru.serverPreserve,
      disableKeepAlive: passthru.disableConnectionKeepAlive,
      warnOnHttp500: [...senderProxies(config).http.warnOnHttp500, ...senderProxies(config).https.warnOnHttp500],
      excludeFromClientResponse: [],
      excludeFromBackendRequest: [],
    },
    globalTimeoutMs: mediation.globalTimeoutMs,
    apis: apiList,
    sequences: sequences.snapshot(),
    tokenApi: tokenApiFront(config, tls),
    websocket: { ...ws, wssCa },
    state: threadState,
    mediation: { respondReflectsRequestHeaders: mediation.respondReflectsRequestHeaders, maskedHeaders: [tokenValidationView(config).authHeader] },
    graphql: graphqlView(config),
  });
  const count = passthru.ioThreads;
  if (count > os.availableParallelism()) log.warn({ ioThreads: count, cores: os.availableParallelism() }, 'more io threads than cores');
  const protocols = listenerTls(config).protocols;
  if (listeners.https.enabled && (protocols.includes('TLSv1') || protocols.includes('TLSv1.1'))) {
    log.info({ protocols }, 'transport.passthru_https listener.protocols: TLS 1.0 and 1.1 are not offered (RFC 8996); the listener starts at TLS 1.2');
  }
  const datas: IoThreadData[] = [];
  for (let i = 0; i < count; i++) datas.push({ gateway: init(i, count, initial, state), log: { ...logView(config) }, codecs: mediation.codecs });
  // A restarted io thread starts from what is current now: APIs, sequences, and each extension's state.
  const rebuild = async (index: number): Promise<IoThreadData> => {
    const fresh: Record<string, unknown> = {};
    for (const ext of extensions) Object.assign(fresh, await (ext.currentState ? ext.currentState() : ext.initialState()));
    return { gateway: init(index, count, apis.list(), fresh), log: { ...logView(config) }, codecs: mediation.codecs };
  };
  let ports: { http?: number; https?: number };
  try {
    ports = await threads.start(datas, rebuild);
  } catch (err) {
    stopWatchingApis();
    if (ownRegistry) apis.stop();
    sequenceWatch.close();
    await threads.stop(0);
    throw err;
  }
  for (const ext of extensions) ext.started?.(threads);
  log.info({ http: ports.http, https: ports.https, ioThreads: count, host: hostname(config) }, 'gateway listening');
  return {
    ports, threads, tls,
    async stop(): Promise<void> {
      stopWatchingApis();
      if (ownRegistry) apis.stop();
      sequenceWatch.close();
      for (const ext of extensions) await ext.stop?.();
      await threads.stop(passthru.gracefulStopMs);
      if (tls) removeGeneratedFiles(tls);
    },
  };
}

/** The key manager origin the gateway's /token and /revoke forward to; the local certificate is trusted. */
function tokenApiFront(config: Config, tls: ServerTlsMaterial | null): GatewayThreadInit['tokenApi'] {
  const url = new URL(tokenValidationView(config).introspectionUrl);
  return { origin: url.origin, ca: tls ? [tls.certChainPem] : [] };
}

/** TLS material of the HTTPS listeners (gateway 8243, servlet 9443), generated on first start. */
export function listenerTlsMaterial(config: Config, log: Logger): ServerTlsMaterial {
  const m = prepareServerTls(listenerTls(config), config.home.securityDir, hostname(config));
  if (m.generated) log.info({ file: listenerTls(config).keyStore.file }, 'generated a self-signed TLS key store (replace it with your own)');
  return m;
}
