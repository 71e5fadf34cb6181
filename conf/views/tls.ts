import type { Config } from '../config.js';

export type ClientAuth = 'none' | 'optional' | 'require';

export interface StoreView {
  readonly file: string;
  readonly type: string | undefined;
  readonly password: string | undefined;
  readonly keyPassword: string | undefined;
}

/** [transport.passthru_https] listener TLS, also used by the servlet HTTPS port (9443). */
export interface ListenerTlsView {
  readonly keyStore: StoreView;
  readonly trustStore: StoreView | undefined;
  readonly clientAuth: ClientAuth;
  readonly protocols: readonly string[];
  readonly ciphers: readonly string[];
  /** The default key store is generated on first start when it does not exist. */
  readonly generateIfMissing: boolean;
}

export const DEFAULT_KEY_STORE = 'repository/resources/security/sluice-tls.p12';

export function listenerTls(config: Config): ListenerTlsView {
  const file = config.get('transport.passthru_https.listener.key_store.file_name');
  const trust = config.get('transport.passthru_https.listener.trust_store.file_name');
  const verify = (config.get('transport.passthru_https.listener.parameters.SSLVerifyClient') ?? 'none').toLowerCase();
  return {
    keyStore: {
      file: config.home.resolve(file ?? DEFAULT_KEY_STORE),
      type: config.get('transport.passthru_https.listener.key_store.type') ?? (file ? undefined : 'PKCS12'),
      password: config.get('transport.passthru_https.listener.key_store.password') ?? (file ? undefined : 'sluice'),
      keyPassword: config.get('transport.passthru_https.listener.key_store.key_password'),
    },
    trustStore: trust ? {
      file: config.home.resolve(trust),
      type: config.get('transport.passthru_https.listener.trust_store.type'),
      password: config.get('transport.passthru_https.listener.trust_store.password'),
      keyPassword: undefined,
    } : undefined,
    clientAuth: verify === 'require' || verify === 'true' ? 'require' : verify === 'optional' ? 'optional' : 'none',
    protocols: config.get('transport.passthru_https.listener.protocols'),
    ciphers: config.get('transport.passthru_https.listener.preferred_ciphers') ?? [],
    generateIfMissing: true,
  };
}

/** Trust for backend TLS: [transport.passthru_https] sender.trust_store and hostname_verifier. */
export interface SenderTlsView {
  readonly trustStore: StoreView | undefined;
  readonly keyStore: StoreView | undefined;
  /** AllowAll / DefaultAndLocalhost / Strict / Default (the reference system's names). */
  readonly hostnameVerifier: string;
}

export function senderTls(config: Config): SenderTlsView {
  const trust = config.get('transport.passthru_https.sender.trust_store.file_name');
  const key = config.get('transport.passthru_https.sender.key_store.file_name');
  return {
    trustStore: trust ? {
      file: config.home.resolve(trust),
      type: config.get('transport.passthru_https.sender.trust_store.type'),
      password: config.get('transport.passthru_https.sender.trust_store.password'),
      keyPassword: undefined,
    } : undefined,
    keyStore: key ? {
      file: config.home.resolve(key),
      type: config.get('transport.passthru_https.sender.key_store.type'),
      password: config.get('transport.passthru_https.sender.key_store.password'),
      keyPassword: config.get('transport.passthru_https.sender.key_store.key_password'),
    } : undefined,
    hostnameVerifier: config.get('transport.passthru_https.sender.hostname_verifier') ?? 'DefaultAndLocalhost',
  };
}
