// `sluice check-config --print`: the effective configuration as JSON on stdout (defaults filled, offsets
// applied, durations in ms, secrets masked); and the default home's file: valid, no warnings, and every key it
// sets that Sluice does not read is one whose reason is known.
import path from 'node:path';
import t from 'tap';
import { MINIMAL, ROOT, checkConfig, childEnv, lookup, requireBuild, tempHome } from './fixtures/helpers.js';

requireBuild();

const MASK = '********';

async function printed(t: Tap.Test, toml: string, extra: readonly string[] = []): Promise<Record<string, unknown>> {
  const home = tempHome(t, toml);
  const r = await checkConfig(home.dir, ['--print', ...extra]);
  t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
  t.match(r.stderr, /configuration OK/);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}
const at = (eff: unknown, p: string): unknown => {
  const r = lookup(eff, p.split('.'));
  return r.found ? r.value : Symbol.for('missing');
};

t.test('defaults filled, durations in ms, lists as lists, keys with dots kept whole', async (t) => {
  const eff = await printed(t, MINIMAL);
  t.equal(at(eff, 'passthru_http.io_buffer_size'), 16384);
  t.same(Object.keys(eff['passthru_http'] as object).filter((k) => k.startsWith('http.')).sort(),
    ['http.headers.preserve', 'http.max.connection.per.host.port', 'http.server.preserve', 'http.socket.timeout', 'http.user.agent.preserve']);
  t.equal((eff['passthru_http'] as Record<string, unknown>)['http.socket.timeout'], 180000);
  t.equal(at(eff, 'apim.gateway_notification.cleanup.data_retention_period'), 2592000000);
  t.same(at(eff, 'apim.cors.allow_methods'), ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS']);
  t.equal(at(eff, 'server.server_role'), 'default');
  t.equal(at(eff, 'server.base_path'), Symbol.for('missing'), 'a key with no default and not written is absent');
  t.notMatch(JSON.stringify(eff), /null/, 'no null placeholders');
});

t.test('offsets applied', async (t) => {
  const eff = await printed(t, '[server]\nhostname = "localhost"\noffset = 10\n[transport.passthru_http]\nlistener.parameters.port = 8000\nlistener.parameters.WSDLEPRPrefix = "http://localhost:${http.nio.port}"\n');
  t.equal(at(eff, 'server.offset'), 10);
  t.equal(at(eff, 'transport.passthru_http.listener.parameters.port'), 8010, 'written, then shifted');
  t.equal(at(eff, 'transport.passthru_http.listener.parameters.WSDLEPRPrefix'), 'http://localhost:8010', 'the placeholder agrees');
  t.equal(at(eff, 'transport.passthru_https.listener.parameters.port'), 8253);
  t.equal(at(eff, 'transport.https.properties.port'), 9453);
  t.equal(at(eff, 'transport.http.properties.port'), 9773);
  t.equal(at(eff, 'transport.receiver.tcpPort'), 9621);
  t.equal(at(eff, 'apim.open_tracer.remote_tracer.properties.port'), 9411, 'a remote port does not move');
});

t.test('secrets masked, also inside URLs and in repeatable elements', async (t) => {
  const secrets = ['adm1n-pw', 'db-pw', 'ks-pw', 'env-pw', 'redis-pw', 'url-pw', 'proxy-pw'];
  const toml = `${MINIMAL}
[super_admin]
username = "admin"
password = "adm1n-pw"
[database.apim_db]
type = "postgre"
url = "jdbc:postgresql://db:5432/apim?user=apim&password=url-pw"
password = "db-pw"
[transport.passthru_https]
listener.parameters.WSDLEPRPrefix = "x"
listener.key_store.password = "ks-pw"
[apim.redis_config]
url = "redis://sluice:redis-pw@cache:6379/0"
[apim.key_manager]
service_url = "https://km:9443/services/"
password = "$env{SLUICE_TEST_KM_PASSWORD}"
[[apim.gateway.environment]]
description = "d"
service_url = "https://localhost:9443/services/"
username = "admin"
password = "$ref{super_admin.password}"
ws_endpoint = "ws://localhost:9099"
https_endpoint = "https://localhost:8243"
[[transport.http.proxy_profile]]
target_hosts = ["*"]
proxy_host = "proxy"
proxy_port = 3128
proxy_password = "proxy-pw"
`;
  const home = tempHome(t, toml);
  const r = await checkConfig(home.dir, ['--print'], { env: childEnv({ SLUICE_TEST_KM_PASSWORD: 'env-pw' }) });
  t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
  for (const s of secrets) t.notOk(r.stdout.includes(s) || r.stderr.includes(s), `${s} is not printed`);
  const eff = JSON.parse(r.stdout) as Record<string, unknown>;
  t.equal(at(eff, 'super_admin.password'), MASK);
  t.equal(at(eff, 'super_admin.username'), 'admin', 'not a secret');
  t.equal(at(eff, 'database.apim_db.password'), MASK);
  t.equal(at(eff, 'database.apim_db.url'), `jdbc:postgresql://db:5432/apim?user=apim&password=${MASK}`);
  t.equal(at(eff, 'transport.passthru_https.listener.key_store.password'), MASK);
  t.equal(at(eff, 'apim.redis_config.url'), `redis://sluice:${MASK}@cache:6379/0`);
  t.equal(at(eff, 'apim.key_manager.password'), MASK);
  t.match(at(eff, 'apim.gateway.environment'), [{ password: MASK, username: 'admin', name: 'Default', type: 'hybrid' }]);
  t.match(at(eff, 'transport.http.proxy_profile'), [{ proxy_password: MASK, proxy_host: 'proxy' }]);
});

t.test('no JSON when the file is not valid', async (t) => {
  const home = tempHome(t, '[server]\noffset = "x"\n');
  const r = await checkConfig(home.dir, ['--print']);
  t.equal(r.code, 2);
  t.equal(r.stdout, '');
});

/**
 * Keys the default home sets that no part of Sluice reads (yet), and why. `check-config` reports them in its
 * "accepted for compatibility but have no effect" note; one not listed here is a key nobody can explain.
 */
const UNREAD_IN_DEFAULT_HOME: Readonly<Record<string, string>> = {
  'server.base_path': 'URLs Sluice builds come from server.hostname and the ports',
  'database.apim_db.username': 'read for type postgre; the embedded store (h2, a SQLite file) has no accounts',
  'database.apim_db.password': 'read for type postgre; the embedded store has no accounts',
  'database.shared_db.type': 'Sluice keeps everything in apim_db; there is no shared database',
  'database.shared_db.url': 'no shared database',
  'database.shared_db.username': 'no shared database',
  'database.shared_db.password': 'no shared database',
  'apim.gateway.environment': 'gateway environments are listed by the developer portal, which Sluice does not have',
  'apim.cache.km_token.enable': 'the key manager side token cache: Sluice\'s gateway keeps its own (apim.cache.gateway_token)',
  'apim.cache.km_token.expiry_time': 'as above',
  'apim.cache.resource.enable': 'resources are resolved from the in-memory registry, not a cache',
  'apim.cache.recent_apis.enable': 'a developer portal cache',
  'apim.cache.scopes.enable': 'a publisher cache',
  'apim.cache.publisher_roles.enable': 'a publisher cache',
  'apim.cache.tags.expiry_time': 'a developer portal cache',
  'apim.analytics.enable': 'no analytics publisher yet',
  'apim.analytics.type': 'no analytics publisher yet',
  'apim.throttling.enable_data_publishing': 'throttling: read by the throttling engine (another branch) or not applicable',
  'apim.throttling.enable_policy_deploy': 'throttling: policies are declarative files',
  'apim.throttling.enable_blacklist_condition': 'throttling (another branch)',
  'apim.throttling.enable_persistence': 'throttling (another branch)',
  'apim.throttling.enable_header_based_throttling': 'throttling (another branch)',
  'apim.throttling.enable_jwt_claim_based_throttling': 'throttling (another branch)',
  'apim.throttling.enable_query_param_based_throttling': 'throttling (another branch)',
  'apim.throttling.throttle_decision_endpoints': 'no message broker: decisions are shared through Redis',
  'apim.throttling.service_url': 'the traffic manager runs in the node',
  'apim.gateway_notification.enabled': 'control-plane heartbeats: no control plane',
  'apim.gateway_notification.heartbeat.notify_interval': 'as above',
  'apim.open_tracer.remote_tracer.enable': 'tracing is not wired yet',
  'apim.open_tracer.log_tracer.enable': 'tracing is not wired yet',
  'carbon_health_check.enable': 'no health check endpoint yet',
  'http_access_log.enabled': 'no access log yet',
  'http_access_log.useLogger': 'no access log yet',
  'transport.passthru_http.listener.parameters.WSDLEPRPrefix': 'WSDL endpoint references: Sluice serves no SOAP service descriptions',
  'transport.passthru_https.listener.parameters.WSDLEPRPrefix': 'as above',
};

t.test("the default home's file", async (t) => {
  const home = path.join(ROOT, 'home');
  const r = await checkConfig(home, ['--strict', '--print']);
  t.equal(r.code, 0, 'valid, even with --strict', { stderr: r.stderr });
  t.notMatch(r.stderr, /^(warning|error):/m, 'no warnings');
  JSON.parse(r.stdout);
  const note = /note: \d+ key\(s\) you set are accepted for compatibility but have no effect in Sluice: (.*)$/m.exec(r.stderr);
  const unread = note ? note[1]!.split(', ') : [];
  for (const k of unread) t.ok(k in UNREAD_IN_DEFAULT_HOME, `${k}: unread, for a known reason`);
});
