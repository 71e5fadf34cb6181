import os from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { hostname, listenerTls, logView, mediationView, passthruListeners, passthruView, senderProxies, senderTls, websocketView } from '../../conf/typed-config.js';
import { loadKeyMaterial, loadTrustedCertificates } from '../../transport/tls/key-store.js';
import { prepareServerTls, removeGeneratedFiles, type ServerTlsMaterial } from '../../transport/tls/server-tls.js';
import { DeclarativeDirectory } from '../registry/declarative-directory.js';
import { readApiFile } from '../registry/api-file.js';
import type { ApiDefinition } from '../registry/types.js';
import type { GatewayThreadInit } from '../gateway/gateway-thread.js';
import type { IoThreadData } from '../gateway/io-thread-protocol.js';
import { IoThreads, assertPortFree } from './io-threads.js';
import type { GatewayExtension } from './gateway-extension.js';
import { SequenceRepository, loadCodecs } from '../../mediation/index.js';

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
export async function startGateway(config: Config, log: Logger, tls: ServerTlsMaterial | null, extensions: readonly GatewayExtension[] = []): Promise<RunningGateway> {
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

  const apis = new DeclarativeDirectory<ApiDefinition>({
    dir: config.home.apisDir, kind: 'API', extension: '.toml', parse: readApiFile, identity: (a) => a.id, log,
    onChange: (list) => { if (threads.size) void threads.deployApis(list); },
  });
  const initial = apis.start();

  const mediation = mediationView(config);
  // Load custom builders/formatters here first, so a bad module stops the start with a clear message.
  try {
    await loadCodecs(mediation.codecs);
  } catch (err) {
    apis.stop();
    throw err;
  }
  const sequences = new SequenceRepository({ dir: mediation.sequencesDir, logger: log });
  sequences.rescan();
  const sequenceWatch = sequences.watch((set) => { if (threads.size) void threads.deploySequences(set); });

  const state: Record<string, unknown> = {};
  try {
    for (const ext of extensions) Object.assign(state, await ext.initialState());
  } catch (err) {
    apis.stop();
    sequenceWatch.close();
    throw err;
  }
  const init = (index: number, count: number): GatewayThreadInit => ({
    index, threads: count, passthru, listeners,
    tls: tls && listeners.https.enabled ? {
      keyFile: tls.keyFile, certFile: tls.certFile, passphrase: tls.passphrase, caFile: tls.clientAuth === 'require' ? tls.caFile : undefined, ciphers: tls.ciphers,
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
    apis: initial,
    sequences: sequences.snapshot(),
    websocket: { ...ws, wssCa },
    state,
  });
  const count = passthru.ioThreads;
  if (count > os.availableParallelism()) log.warn({ ioThreads: count, cores: os.availableParallelism() }, 'more io threads than cores');
  if (tls?.clientAuth === 'optional') log.warn('SSLVerifyClient = "optional" is not supported by the uWebSockets.js listener: client certificates are not requested (use "require")');
  const datas: IoThreadData[] = [];
  for (let i = 0; i < count; i++) datas.push({ gateway: init(i, count), log: { ...logView(config) }, codecs: mediation.codecs });
  let ports: { http?: number; https?: number };
  try {
    ports = await threads.start(datas);
  } catch (err) {
    apis.stop();
    sequenceWatch.close();
    await threads.stop(0);
    throw err;
  }
  for (const ext of extensions) ext.started?.(threads);
  log.info({ http: ports.http, https: ports.https, ioThreads: count, host: hostname(config) }, 'gateway listening');
  return {
    ports, threads, tls,
    async stop(): Promise<void> {
      apis.stop();
      sequenceWatch.close();
      for (const ext of extensions) await ext.stop?.();
      await threads.stop(passthru.gracefulStopMs);
      if (tls) removeGeneratedFiles(tls);
    },
  };
}

/** TLS material of the HTTPS listeners (gateway 8243, servlet 9443), generated on first start. */
export function listenerTlsMaterial(config: Config, log: Logger): ServerTlsMaterial {
  const m = prepareServerTls(listenerTls(config), config.home.securityDir, hostname(config));
  if (m.generated) log.info({ file: listenerTls(config).keyStore.file }, 'generated a self-signed TLS key store (replace it with your own)');
  return m;
}
