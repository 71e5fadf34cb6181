// The typed views (conf/views/*) return what the file says, defaults filled; Config.get is typed by the catalog.
import path from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { HomeLayout } from '../../conf/home.js';
import { loadConfigText } from '../../conf/loader.js';
import {
  apimDbView, backendJwtView, corsView, keyManagerAccessView, listenerTls, logView, mediationView, mutualSslView, oauthView,
  passthruListeners, passthruView, ports, revocationView, roles, senderProxies, senderTls, servletView, tokenPersistenceView,
  tokenValidationView, transportHeadersView, unusedKeys,
} from '../../conf/typed-config.js';
import { ROOT } from './fixtures/helpers.js';

const HOME = '/srv/sluice-home';
const load = (toml: string) => loadConfigText(toml, path.join(HOME, 'repository/conf/deployment.toml'), new HomeLayout(HOME), { env: {}, cpuCores: 4 });

const FILE = `
[server]
hostname = "gw.example.com"
offset = 1
server_role = "gateway-worker"

[super_admin]
username = "root"
password = "r00t"
create_admin_account = "false"

[database.apim_db]
type = "postgre"
url = "jdbc:postgresql://db.example.com:5433/apim?sslmode=require"
username = "apim"
password = "apim-pw"
pool_options.maxActive = "20"
pool_options.maxWait = "5s"

[apim.key_manager]
service_url = "https://km.example.com:9443/services/"
username = "$ref{super_admin.username}"
password = "$ref{super_admin.password}"

[apim.cors]
allow_origins = "https://a.example, https://b.example"
allow_methods = ["GET"]
allow_credentials = "true"

[apim.jwt]
enable = "true"
encoding = "base64url"
signing_algorithm = "NONE"
gateway_generator.excluded_claims = "aud, iss"

[apimgt.mutual_ssl]
enable_client_validation = true
certificate_header = "X-Client-Cert"

[apim.transport_headers]
enabled = true
excludeRequestHeaders = "X-Internal, X-Debug"

[apim.cache.gateway_token]
expiry_time = "5m"
max_entries = 500

[apim.token.revocation]
enable_realtime_notifier = false
realtime_notifier.ttl = 2000

[oauth]
allowed_scopes = ["^internal_.*"]
timestamp_skew = 30

[oauth.token_validation]
app_access_token_validity = 600

[oauth.grant_type.password]
enable = false

[oauth.token_cleanup]
interval = "10m"

[session_data.persistence]
persistence_pool_size = 4

[transport.https.properties]
port = 9500
maxHttpHeaderSize = 16384
disableUploadTimeout = true

[transport.passthru_http]
listener.parameters.port = 8300
listener.bind-address = "127.0.0.1"
listener.parameters.WSDLEPRPrefix = "http://gw.example.com:8301"
sender.http.proxyHost = "proxy.example.com"
sender.http.proxyPort = 3128
sender.http.nonProxyHosts = "localhost|*.internal"
sender.warnOnHTTP500 = "*"

[transport.passthru_https]
listener.enable = false
listener.parameters.WSDLEPRPrefix = "https://gw.example.com:8244"
listener.parameters.SSLVerifyClient = "optional"
listener.protocols = "TLSv1.2"
listener.key_store.file_name = "repository/resources/security/gw.p12"
listener.key_store.password = "ks-pw"
sender.trust_store.file_name = "/etc/ssl/trust.p12"
sender.hostname_verifier = "AllowAll"

[[transport.http.proxy_profile]]
target_hosts = ["*.partner.example"]
proxy_host = "partner-proxy"
proxy_port = 8080

[passthru_http]
"http.socket.timeout" = "90s"
worker_pool_size_core = 100
worker_pool_size_max = 200
worker_pool_queue_length = 1000
"http.headers.preserve" = "Content-Type, Server"
force_json_validation = "true"

[mediation]
"synapse.global_timeout_interval" = "45s"

[sluice.log]
level = "debug"
format = "json"
file = "logs/gw.log"
`;

t.test('the views return what the file says', async (t) => {
  const c = load(FILE);
  t.same(roles(c), { role: 'gateway-worker', gateway: true, keyManager: false, trafficManager: false, controlPlane: false });
  t.same(ports(c), { offset: 1, passthruHttp: 8301, passthruHttps: 8244, servletHttps: 9501, servletHttp: 9764, binaryTcp: 9612, binarySsl: 9712 });
  t.same(logView(c), { level: 'debug', format: 'json', file: path.join(HOME, 'logs/gw.log'), console: true });
  t.match(passthruView(c), {
    socketTimeoutMs: 90_000, workerPoolCore: 100, workerPoolMax: 200, workerPoolQueueLength: 1000, ioBufferSize: 16384,
    headersPreserve: ['content-type', 'server'], forceJsonValidation: true, forceXmlValidation: false, ioThreads: 4, gracefulStopMs: 30_000,
  });
  t.same(passthruListeners(c), {
    http: { enabled: true, port: 8301, bindAddress: '127.0.0.1' },
    https: { enabled: false, port: 8244, bindAddress: '0.0.0.0' },
  });
  const proxies = senderProxies(c);
  t.same(proxies.http.proxy, { targetHosts: ['*'], proxyHost: 'proxy.example.com', proxyPort: 3128, username: undefined, password: undefined, bypassHosts: ['localhost', '*.internal'] });
  t.same(proxies.http.warnOnHttp500, ['*']);
  t.same(proxies.http.profiles, [{ targetHosts: ['*.partner.example'], proxyHost: 'partner-proxy', proxyPort: 8080, username: undefined, password: undefined, bypassHosts: [] }]);
  t.match(listenerTls(c), {
    keyStore: { file: path.join(HOME, 'repository/resources/security/gw.p12'), password: 'ks-pw' },
    clientAuth: 'optional', protocols: ['TLSv1.2'], ciphers: [], trustStore: undefined,
  });
  t.match(senderTls(c), { trustStore: { file: '/etc/ssl/trust.p12' }, keyStore: undefined, hostnameVerifier: 'AllowAll' });
  t.same(corsView(c), { enabled: true, allowOrigins: ['https://a.example', 'https://b.example'], allowMethods: ['GET'],
    allowHeaders: ['authorization', 'Access-Control-Allow-Origin', 'Content-Type', 'SOAPAction'], allowCredentials: true });
  t.match(backendJwtView(c), { enabled: true, encoding: 'base64url', sign: false, header: 'X-JWT-Assertion', excludedClaims: ['aud', 'iss'], useKid: true });
  t.same(mutualSslView(c), { enabled: true, header: 'x-client-cert', encoded: false });
  t.same(transportHeadersView(c), { enabled: true, removeRequestHeaders: false, preserveRequestHeaders: [], excludeRequestHeaders: ['X-Internal', 'X-Debug'], excludeResponseHeaders: [] });
  const oauth = oauthView(c);
  t.match(oauth, { appAccessTokenValidity: 600, userAccessTokenValidity: 3600, refreshTokenValidity: 86400, timestampSkew: 30,
    issuer: 'https://gw.example.com:9501/oauth2/token', authHeader: 'Authorization', revokeEndpoint: 'https://gw.example.com:9501/oauth2/revoke' });
  t.same(oauth.allowedScopes, ['^internal_.*', '^device_.*', 'openid']);
  t.same(oauth.grantEnabled, { client_credentials: true, password: false, refresh_token: true, authorization_code: true, saml_bearer: true, iwa_ntlm: true, jwt_bearer: true, kerberos: false });
  t.same(tokenPersistenceView(c), { cleanupEnabled: true, retainForAudit: true, cleanupInterval: 600_000, persistencePoolSize: 4, retryCountOnPersistenceFailures: 5 });
  t.same(keyManagerAccessView(c), { superAdmin: { username: 'root', password: 'r00t', create: false, passwordSource: 'config', generatedPasswordFile: path.join(HOME, 'repository/resources/security/super_admin.password') },
    validation: { username: 'root', password: 'r00t' }, applicationsRescanInterval: 5000 });
  t.match(servletView(c), { bindAddress: '0.0.0.0', https: { port: 9501, maxHeaderSize: 16384, uploadTimeout: 0, keepAliveTimeout: 60_000 }, http: { port: 9764, uploadTimeout: 120_000 } });
  t.same(revocationView(c), { realtimeNotifier: false, realtimeTtl: 2000, persistentNotifier: false });
  t.match(tokenValidationView(c), { authHeader: 'authorization', cacheExpiryMs: 300_000, cacheMaxEntries: 500, jwksUrl: 'https://km.example.com:9443/oauth2/jwks',
    introspectionUrl: 'https://km.example.com:9443/oauth2/introspect', introspectionUser: 'root', maxTotal: 100, maxPerRoute: 50 });
  t.match(apimDbView(c), { kind: 'postgres', host: 'db.example.com', port: 5433, database: 'apim', user: 'apim', password: 'apim-pw', params: { sslmode: 'require' }, maxConnections: 20, maxWait: 5000, testOnBorrow: true });
  t.match(mediationView(c), { globalTimeoutMs: 45_000, sequencesDir: path.join(HOME, 'repository/deployment/server/synapse-configs/default/sequences') });
});

t.test('an almost empty file: every view has its defaults', async (t) => {
  const c = load('[server]\nhostname = "localhost"\n');
  t.same(roles(c), { role: 'default', gateway: true, keyManager: true, trafficManager: true, controlPlane: true });
  t.same(ports(c), { offset: 0, passthruHttp: 8280, passthruHttps: 8243, servletHttps: 9443, servletHttp: 9763, binaryTcp: 9611, binarySsl: 9711 });
  t.match(passthruView(c), { socketTimeoutMs: 180_000, workerPoolCore: 400, workerPoolMax: 400, workerPoolQueueLength: -1, headersPreserve: ['content-type'], ioThreads: 4 });
  t.same(apimDbView(c), { kind: 'sqlite', file: path.join(HOME, 'repository/database/WSO2AM_DB.sqlite') });
  t.match(listenerTls(c), { keyStore: { file: path.join(HOME, 'repository/resources/security/sluice-tls.p12'), type: 'PKCS12' }, clientAuth: 'none', protocols: ['TLSv1', 'TLSv1.1', 'TLSv1.2'] });
  t.same(unusedKeys(c), [], 'nothing written, nothing unused');
  for (const view of [roles, ports, logView, passthruView, passthruListeners, senderProxies, listenerTls, senderTls, corsView, backendJwtView, mutualSslView,
    transportHeadersView, oauthView, tokenPersistenceView, keyManagerAccessView, servletView, revocationView, tokenValidationView, apimDbView, mediationView]) {
    const v = view(c);
    t.same(structuredClone(v), v, `${view.name}: plain data (can be posted to an io thread)`);
  }
});

t.test('Config.get: values typed by the catalog', async (t) => {
  const c = load(FILE);
  t.type(c.get('passthru_http.worker_pool_size_core'), 'number');
  t.type(c.get('apim.cors.allow_credentials'), 'boolean', 'a quoted "true" is a boolean');
  t.type(c.get('database.apim_db.pool_options.maxActive'), 'number', 'a quoted number is a number');
  t.ok(Array.isArray(c.get('apim.cors.allow_origins')), 'a comma string is a list');
  t.equal(c.get('server.base_path'), undefined, 'a key without a default and not written');
  t.ok(c.isWritten('server.offset'));
  t.notOk(c.isWritten('server.mode'));
  t.equal(c.items('apim.gateway.environment').length, 0);
});

t.test('Config.get: the compiler checks paths and types', async (t) => {
  const file = path.join(ROOT, 'test/conf/fixtures/config-get-types.ts');
  const program = ts.createProgram([file], {
    strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: ['node'],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  t.same(diagnostics, [], 'every @ts-expect-error is an error, and nothing else is');
});
