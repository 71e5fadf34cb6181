import type { Config } from '../../conf/config.js';
import { servletView, listenerTls, hostname } from '../../conf/typed-config.js';
import { prepareServerTls, removeGeneratedFiles, type ServerTlsMaterial } from '../../transport/tls/server-tls.js';
import type { Logger } from '../log/logger.js';
import { ServletServer, type ServletServerOptions } from './server.js';

export interface ServletFromConfigOverrides {
  /** Replace the configured ports (tests use 0). */
  readonly httpsPort?: number;
  readonly httpPort?: number;
  readonly host?: string;
  /** TLS material already prepared (the main thread prepares it once for every listener). */
  readonly tls?: ServerTlsMaterial;
}

/**
 * The servlet transport as deployment.toml describes it: HTTPS on [transport.https.properties] port with the
 * listener key store ([transport.passthru_https] listener.key_store, self-signed on first start), HTTP on
 * [transport.http.properties] port, both on [sluice.servlet] bind_address.
 */
export function servletFromConfig(config: Config, log: Logger, o: ServletFromConfigOverrides = {}): { server: ServletServer; tls: ServerTlsMaterial; ownsTls: boolean } {
  const v = servletView(config);
  const tls = o.tls ?? prepareServerTls(listenerTls(config), config.home.securityDir, hostname(config));
  const opts: ServletServerOptions = {
    log,
    host: o.host ?? v.bindAddress,
    maxBodySize: v.maxBodySize,
    headersTimeout: v.headersTimeout,
    requestTimeout: v.requestTimeout,
    gracefulStopTimeout: v.gracefulStopTimeout,
    https: {
      ...v.https, port: o.httpsPort ?? v.https.port,
      ...(v.https.serverHeader ? { serverHeader: v.https.serverHeader } : {}),
      tls: {
        key: tls.encryptedKeyPem, passphrase: tls.passphrase, cert: tls.certChainPem,
        ...(tls.caPem ? { ca: tls.caPem } : {}),
        requestCert: tls.clientAuth !== 'none', rejectUnauthorized: tls.clientAuth === 'require',
        minVersion: tls.minVersion, ...(tls.ciphers ? { ciphers: tls.ciphers } : {}),
      },
    },
    http: { ...v.http, port: o.httpPort ?? v.http.port, ...(v.http.serverHeader ? { serverHeader: v.http.serverHeader } : {}) },
  };
  return { server: new ServletServer(opts), tls, ownsTls: !o.tls };
}

export { removeGeneratedFiles };
