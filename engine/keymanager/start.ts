import type { Config } from '../../conf/config.js';
import { apimDbView, authenticationView, authorizationView, externalIssuersView, keyManagerAccessView, ldapUserStoreView, senderTls, oauthView, revocationView, superAdminView, tokenPersistenceView } from '../../conf/typed-config.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import { servletFromConfig, type ServletServer, type ServletAddresses } from '../servlet/index.js';
import { removeGeneratedFiles } from '../servlet/from-config.js';
import type { ServerTlsMaterial } from '../../transport/tls/server-tls.js';
import { openStore, TokenWriter, type ApimStore } from '../store/index.js';
import { AuthBackoff } from './auth-backoff.js';
import { DeclarativeApplications } from './declarative-applications.js';
import { ClientDirectory } from './directory.js';
import { ClientRegistration } from './registration.js';
import { mountKeyManagerRoutes } from './routes.js';
import { limitHashing } from './secret-hash.js';
import { SigningKeys } from './signing-keys.js';
import { ensureSuperAdminPassword } from './super-admin-password.js';
import { TokenCodec } from './token-crypto.js';
import { TokenService } from './token-service.js';
import { UserDirectory } from './users.js';
import { AuthorizationEndpoint } from './authorize/authorization-endpoint.js';
import { StateSealer } from './authorize/sealed-state.js';
import { UserInfo } from './oidc/userinfo.js';
import { RoleScopes } from './user-store/role-scopes.js';
import { ChainedUserStore, type UserStore } from './user-store/user-store.js';
import { LdapUserStore } from './user-store/ldap-user-store.js';
import { TrustedIssuers } from '../external-issuers/trusted-issuers.js';
import { loadTrustedCertificates } from '../../transport/tls/key-store.js';
import { DeclarativeUsers } from './user-store/declarative-users.js';
import { ApiKeys } from './api-keys.js';

/** Log fields that never appear in clear, whatever a caller passes. */
export const REDACT_PATHS = [
  'password', '*.password', 'secret', '*.secret', 'client_secret', '*.client_secret', 'clientSecret', '*.clientSecret',
  'token', '*.token', 'access_token', '*.access_token', 'refresh_token', '*.refresh_token',
  'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization', '*.headers.authorization',
];

/** How long an expired authorization code (and so its nonce) is remembered. */
const CODE_RETENTION_MS = 24 * 3600 * 1000;

export interface KeyManagerOptions {
  /** Replace the configured servlet ports (tests use 0). */
  readonly httpsPort?: number;
  readonly httpPort?: number;
  readonly host?: string;
  /** Mount on a servlet server someone else owns (started and stopped by them). */
  readonly servlet?: ServletServer;
  /** TLS material already prepared by the main thread. */
  readonly tls?: ServerTlsMaterial;
  /** Use this open apim_db store (opened and closed by the node) instead of opening one. */
  readonly store?: ApimStore;
  /** Test hooks. */
  readonly randomToken?: () => string;
  readonly now?: () => number;
}

export interface RunningKeyManager {
  readonly servlet: ServletServer;
  readonly addresses: ServletAddresses;
  readonly store: ApimStore;
  readonly tokens: TokenService;
  readonly keys: SigningKeys;
  readonly applications: DeclarativeApplications;
  readonly clients: ClientDirectory;
  /** Where resource owners are checked (the database, or the database then LDAP). */
  readonly users: UserStore;
  /** Scope-role bindings; clear after a role changes. */
  readonly roleScopes: RoleScopes;
  /** users/*.toml: users and roles declared in files. */
  readonly usersFiles: DeclarativeUsers;
  /** Signs and revokes API keys. */
  readonly apiKeys: ApiKeys;
  /** The database's users, with the back-off of failed logins the admin API and the token endpoint share. */
  readonly directory: UserDirectory;
  /** Runs [oauth.token_cleanup] now; returns the rows removed. */
  cleanup(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The key manager role: the apim_db store, the user store with the super admin, the signing keys, the
 * declarative applications, the token service and its routes on the servlet ports ([transport.https.properties]
 * 9443 and [transport.http.properties] 9763, plus server.offset).
 */
export async function startKeyManager(config: Config, parentLog: Logger, bus: EventBus, opts: KeyManagerOptions = {}): Promise<RunningKeyManager> {
  const log = parentLog.child({ component: 'keymanager' }, { redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
  const oauth = oauthView(config);
  const authz = authorizationView(config);
  const persistence = tokenPersistenceView(config);
  ensureSuperAdminPassword(superAdminView(config), log);
  const access = keyManagerAccessView(config);
  const authentication = authenticationView(config);
  limitHashing(authentication);
  const home = config.home;
  const revocation = revocationView(config);
  if (revocation.persistentNotifier) {
    log.warn('[apim.token.revocation] enable_persistent_notifier: not implemented by the key manager; revocations reach this node\'s gateways through the event bus and other nodes through the shared store');
  }

  const keys = await SigningKeys.load(home.securityDir);
  for (const w of keys.warnings) log.warn(w);
  if (keys.generated) log.info({ file: keys.file, kid: keys.kid }, 'token signing key generated');

  const store = opts.store ?? await openStore(apimDbView(config), log.child({ component: 'store' }));
  const cleanups: (() => Promise<void> | void)[] = opts.store ? [] : [() => store.close()];
  const fail = async (err: unknown): Promise<never> => {
    for (const c of cleanups) { try { await c(); } catch { /* already failing */ } }
    throw err;
  };
  try {
    const directory = new UserDirectory(store, new AuthBackoff(authentication));
    await directory.ensureSuperAdmin(access.superAdmin, log);
    const ldap = ldapUserStoreView(config);
    const users: UserStore = ldap ? new ChainedUserStore([directory, new LdapUserStore(ldap, log.child({ component: 'ldap' }))]) : directory;
    if (ldap) log.info({ url: ldap.url, base: ldap.userSearchBase, groups: ldap.readGroups }, 'read-only LDAP user store (after the database users)');
    const roleScopes = new RoleScopes(store);
    const usersFiles = new DeclarativeUsers({
      dir: home.usersDir, store, log: log.child({ component: 'users-files' }), rescanInterval: access.applicationsRescanInterval,
      onChange: () => roleScopes.invalidate(),
    });
    await usersFiles.start();
    cleanups.unshift(() => usersFiles.stop());
    const trust = senderTls(config).trustStore;
    const trustedIssuers = new TrustedIssuers(externalIssuersView(config), trust ? loadTrustedCertificates(trust) : undefined);
    cleanups.unshift(() => trustedIssuers.close());
    const codec = TokenCodec.create({ hash: oauth.hashTokens, encrypt: oauth.encryptTokens, securityDir: home.securityDir });
    const writer = new TokenWriter(store.tokens, persistence.persistencePoolSize);
    cleanups.unshift(() => writer.close());
    const clients = new ClientDirectory(store);
    const tokens = new TokenService({
      store, writer, clients, users, backoff: directory.backoff, roleScopes, authz, trustedIssuers, keys, codec, bus, oauth,
      retryCount: persistence.retryCountOnPersistenceFailures,
      validation: access.validation,
      log,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.randomToken ? { randomToken: opts.randomToken } : {}),
    });
    for (const p of tokens.scopes.invalidPatterns) log.warn({ pattern: p }, 'allowed_scopes: not a valid regular expression; matched literally');
    cleanups.unshift(() => tokens.stop());

    const apiKeys = new ApiKeys({ store, keys, issuer: oauth.issuer, bus, log: log.child({ component: 'api-keys' }), ...(opts.now ? { now: opts.now } : {}) });
    let revision = 0;
    const registryChanged = async (): Promise<void> => {
      clients.invalidate();
      await bus.publish({ type: 'registry.changed', kind: 'applications', revision: ++revision });
    };
    const applications = new DeclarativeApplications({
      dir: home.applicationsDir,
      homeRoot: home.root,
      store,
      log,
      defaultOwner: access.superAdmin.username,
      rescanInterval: access.applicationsRescanInterval,
      onChange: async (change) => {
        await registryChanged();
        await tokens.revokeClients(change.removedClientIds);
        for (const name of change.removed) await apiKeys.revokeApplication(name);
      },
    });
    await applications.start();
    cleanups.unshift(() => applications.stop());

    const registration = new ClientRegistration(store, directory, registryChanged, new StateSealer(keys.deriveSecret('registered-client-secrets')));

    let cleanupTimer: NodeJS.Timeout | undefined;
    let cleaning: Promise<number> | undefined;
    const cleanup = (): Promise<number> => {
      // Codes are kept a day past their expiry: their nonces are refused again that long.
      cleaning ??= Promise.all([store.tokens.cleanup(Date.now(), persistence.retainForAudit), store.codes.cleanup(Date.now(), CODE_RETENTION_MS)]).then(([n]) => {
        if (n) log.info({ removed: n, audited: persistence.retainForAudit }, 'expired tokens cleaned up');
        return n;
      }).finally(() => { cleaning = undefined; });
      return cleaning;
    };
    if (persistence.cleanupEnabled) {
      cleanupTimer = setInterval(() => { cleanup().catch((err) => log.error({ err: (err as Error).message }, 'token cleanup failed')); }, persistence.cleanupInterval);
      cleanupTimer.unref();
      cleanup().catch((err) => log.error({ err: (err as Error).message }, 'token cleanup failed'));
      cleanups.unshift(() => { clearInterval(cleanupTimer); return cleaning?.then(() => undefined, () => undefined); });
    }

    let servlet: ServletServer;
    let ownedServlet = false;
    let tls: ServerTlsMaterial | undefined;
    if (opts.servlet) {
      servlet = opts.servlet;
    } else {
      const made = servletFromConfig(config, log.child({ component: 'servlet' }), {
        ...(opts.httpsPort !== undefined ? { httpsPort: opts.httpsPort } : {}),
        ...(opts.httpPort !== undefined ? { httpPort: opts.httpPort } : {}),
        ...(opts.host !== undefined ? { host: opts.host } : {}),
        ...(opts.tls ? { tls: opts.tls } : {}),
      });
      servlet = made.server;
      ownedServlet = true;
      if (made.ownsTls) tls = made.tls;
    }
    const authorize = new AuthorizationEndpoint({
      clients, users, backoff: directory.backoff, roleScopes, scopes: tokens.scopes, store, view: authz, grantEnabled: oauth.grantEnabled.authorization_code,
      sealer: new StateSealer(keys.deriveSecret('authorization-state'), opts.now), issuer: oauth.issuer, path: '/oauth2/authorize',
      log: log.child({ component: 'authorize' }), ...(opts.now ? { now: opts.now } : {}),
    });
    mountKeyManagerRoutes(servlet, tokens, keys, registration, {
      authorize, userinfo: new UserInfo(store, users, opts.now), grantEnabled: oauth.grantEnabled, pkceAllowPlain: authz.pkceAllowPlain,
    });
    let addresses: ServletAddresses = servlet.addresses();
    if (ownedServlet) {
      if (tls) { const t = tls; cleanups.unshift(() => removeGeneratedFiles(t)); }
      addresses = await servlet.start();
      cleanups.unshift(() => servlet.stop());
    }
    // On a servlet server owned by the node (not started yet), the node logs the ports once they are open.
    if (addresses.https !== undefined || addresses.http !== undefined) {
      log.info({ https: addresses.https, http: addresses.http, issuer: oauth.issuer, kid: keys.kid, tokens: codec.storage }, 'key manager listening');
    } else {
      log.info({ issuer: oauth.issuer, kid: keys.kid, tokens: codec.storage }, 'key manager routes mounted');
    }

    let stopped: Promise<void> | undefined;
    return {
      servlet, addresses, store, tokens, keys, applications, clients, users, directory, roleScopes, usersFiles, apiKeys, cleanup,
      stop() {
        stopped ??= (async () => {
          for (const c of cleanups.splice(0)) {
            try { await c(); } catch (err) { log.warn({ err: (err as Error).message }, 'key manager stop step failed'); }
          }
          log.info('key manager stopped');
        })();
        return stopped;
      },
    };
  } catch (err) {
    return fail(err);
  }
}
