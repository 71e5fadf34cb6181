// Placeholders in values: $ref{section.key} and $conf{section.key} (another key's value, as written or its
// default), $env{NAME} (an environment variable) and the ${...} runtime placeholders of conf/placeholders.ts.
import path from 'node:path';
import t from 'tap';
import { ConfigError } from '../../conf/errors.js';
import { HomeLayout } from '../../conf/home.js';
import { loadConfig, loadConfigText, type LoadOptions } from '../../conf/loader.js';
import { RUNTIME_PLACEHOLDERS } from '../../conf/placeholders.js';
import { MINIMAL, tempHome } from './fixtures/helpers.js';

const HOME = path.resolve('/srv/sluice-home');
const load = (toml: string, options: LoadOptions = {}) =>
  loadConfigText(toml, path.join(HOME, 'repository/conf/deployment.toml'), new HomeLayout(HOME), { env: {}, ...options });

function issuesOf(fn: () => unknown): ConfigError['issues'] {
  try { fn(); } catch (err) { if (err instanceof ConfigError) return err.issues; throw err; }
  throw new Error('expected a ConfigError');
}

t.test('$ref and $conf', async (t) => {
  t.test('a whole-value reference keeps the referenced type', async (t) => {
    const c = load(`${MINIMAL}[passthru_http]\nworker_pool_size_core = 300\nworker_pool_size_max = "$ref{passthru_http.worker_pool_size_core}"\n`);
    t.equal(c.get('passthru_http.worker_pool_size_max'), 300);
  });
  t.test('a reference to a key not written takes its default', async (t) => {
    const c = load(`${MINIMAL}[passthru_http]\nworker_pool_size_max = "$ref{passthru_http.io_buffer_size}"\n`);
    t.equal(c.get('passthru_http.worker_pool_size_max'), 16384);
  });
  t.test('a reference to a machine default (io threads: the cores)', async (t) => {
    const c = load(`${MINIMAL}[passthru_http]\nworker_pool_size_core = "$ref{passthru_http.io_threads_per_reactor}"\n`, { cpuCores: 6 });
    t.equal(c.get('passthru_http.worker_pool_size_core'), 6);
  });
  t.test('inside a string, several in one value', async (t) => {
    const c = load('[server]\nhostname = "gw.example.com"\n[apim.key_manager]\nservice_url = "https://$ref{server.hostname}:$ref{transport.https.properties.port}/services/"\n');
    t.equal(c.get('apim.key_manager.service_url'), 'https://gw.example.com:9443/services/');
  });
  t.test('$conf is $ref', async (t) => {
    const c = load('[server]\nhostname = "h1"\nbase_path = "https://$conf{server.hostname}"\n');
    t.equal(c.get('server.base_path'), 'https://h1');
  });
  t.test('a chain of references', async (t) => {
    const c = load('[server]\nhostname = "h2"\nbase_path = "$ref{super_admin.username}"\n[super_admin]\nusername = "$ref{server.hostname}"\n');
    t.equal(c.get('server.base_path'), 'h2');
    t.equal(c.get('super_admin.username'), 'h2');
  });
  t.test('a duration referenced is read once, in ms', async (t) => {
    const c = load(`${MINIMAL}[apim.cache.tags]\nexpiry_time = "3m"\n[apim.cache.gateway_token]\nexpiry_time = "$ref{apim.cache.tags.expiry_time}"\n`);
    t.equal(c.get('apim.cache.gateway_token.expiry_time'), 180000);
  });
  t.test('a list referenced whole stays a list; inside a string it is joined', async (t) => {
    const c = load(`${MINIMAL}[apim.cors]\nallow_methods = ["GET", "POST"]\nallow_headers = "$ref{apim.cors.allow_methods}"\n[apim.jwt]\nheader = "X-$ref{apim.cors.allow_methods}"\n`);
    t.same(c.get('apim.cors.allow_headers'), ['GET', 'POST']);
    t.equal(c.get('apim.jwt.header'), 'X-GET,POST');
  });
  t.test('the key manager credentials of the default home: the super admin ones', async (t) => {
    const c = load('[super_admin]\nusername = "root"\npassword = "s3cret"\n[apim.key_manager]\nservice_url = "https://localhost:9443/services/"\nusername = "$ref{super_admin.username}"\npassword = "$ref{super_admin.password}"\n');
    t.equal(c.get('apim.key_manager.username'), 'root');
    t.equal(c.get('apim.key_manager.password'), 's3cret');
    t.equal((c.effective() as { apim: { key_manager: { password: string } } }).apim.key_manager.password, '********', 'still a secret');
  });
  t.test('a key written in a section the catalog does not know can be referenced (it is warned about)', async (t) => {
    const c = load('[server]\nhostname = "$ref{site.name}"\n[site]\nname = "edge-1"\n');
    t.equal(c.get('server.hostname'), 'edge-1');
    t.match(c.warnings.map((w) => w.path), ['site.name']);
  });
  t.test('errors', async (t) => {
    t.match(issuesOf(() => load('[server]\nhostname = "$ref{a.b}"\n[a]\nb = "$ref{a.c}"\nc = "$ref{server.hostname}"\n')),
      [{ path: 'server.hostname', line: 2, message: 'placeholder cycle: server.hostname -> a.b -> a.c -> server.hostname' }]);
    t.match(issuesOf(() => load('[server]\nhostname = "$ref{server.hostnme}"\n')),
      [{ path: 'server.hostname', message: '$ref{server.hostnme} refers to an unknown key', suggestion: 'server.hostname' }]);
    t.match(issuesOf(() => load('[server]\nbase_path = "$ref{server.section}"\n')),
      [{ path: 'server.base_path', message: /unknown key/ }]);
    t.match(issuesOf(() => load('[server]\nhostname = "$ref{apim.ai.token}"\n')),
      [{ path: 'server.hostname', message: '$ref{apim.ai.token} refers to a key that is not set and has no default' }]);
    t.match(issuesOf(() => load(`${MINIMAL}[passthru_http]\nworker_pool_size_core = "$ref{server.hostname}"\n`)),
      [{ path: 'passthru_http.worker_pool_size_core', message: 'invalid value "localhost"', expected: 'an integer' }], 'the referenced value is checked against the key that uses it');
  });
});

t.test('$env', async (t) => {
  t.test('whole value, typed by the key', async (t) => {
    const c = load('[server]\nhostname = "localhost"\noffset = "$env{SLUICE_OFFSET}"\n', { env: { SLUICE_OFFSET: '7' } });
    t.equal(c.get('server.offset'), 7);
    t.equal(c.get('transport.passthru_http.listener.parameters.port'), 8287, 'and the offset applies');
  });
  t.test('inside a string and in list elements', async (t) => {
    const c = load(`${MINIMAL}[apim.cors]\nallow_origins = ["https://$env{APP_HOST}", "https://b.example"]\nallow_credentials = true\n`, { env: { APP_HOST: 'a.example' } });
    t.same(c.get('apim.cors.allow_origins'), ['https://a.example', 'https://b.example']);
  });
  t.test('a secret from the environment is masked like any secret', async (t) => {
    const c = load(`[super_admin]\nusername = "admin"\npassword = "$env{ADMIN_PASSWORD}"\n`, { env: { ADMIN_PASSWORD: 'from-env' } });
    t.equal(c.get('super_admin.password'), 'from-env');
    t.notMatch(JSON.stringify(c.effective()), /from-env/);
  });
  t.test('an empty variable is a value (the empty string)', async (t) => {
    const c = load(`${MINIMAL}[apim.jwt]\nheader = "X$env{EMPTY}"\n`, { env: { EMPTY: '' } });
    t.equal(c.get('apim.jwt.header'), 'X');
  });
  t.test('the process environment by default', async (t) => {
    process.env['SLUICE_TEST_HOSTNAME'] = 'from-process';
    t.teardown(() => { delete process.env['SLUICE_TEST_HOSTNAME']; });
    const home = tempHome(t, '[server]\nhostname = "$env{SLUICE_TEST_HOSTNAME}"\n');
    t.equal(loadConfig(home.dir).get('server.hostname'), 'from-process');
  });
  t.test('an unset variable', async (t) => {
    t.match(issuesOf(() => load('[server]\nhostname = "localhost"\n[super_admin]\npassword = "$env{NOT_SET_HERE}"\n')),
      [{ path: 'super_admin.password', line: 4, message: 'environment variable NOT_SET_HERE is not set ($env{NOT_SET_HERE})' }]);
  });
});

t.test('${...} runtime placeholders', async (t) => {
  const c = load('[server]\nhostname = "gw.local"\noffset = 3\n[transport.passthru_http]\nlistener.parameters.port = 8000\nlistener.parameters.WSDLEPRPrefix = "x"\n');
  const value = (name: string): string =>
    load(`[server]\nhostname = "gw.local"\noffset = 3\nbase_path = "\${${name}}"\n[transport.passthru_http]\nlistener.parameters.port = 8000\nlistener.parameters.WSDLEPRPrefix = "x"\n`).get('server.base_path')!;
  const expected: Record<keyof typeof RUNTIME_PLACEHOLDERS, string> = {
    'carbon.home': HOME,
    'sluice.home': HOME,
    'carbon.host': 'gw.local',
    'carbon.protocol': 'https',
    'carbon.context': '/',
    'carbon.management.port': String(c.get('transport.https.properties.port')),
    'mgt.transport.https.port': '9446',
    'mgt.transport.http.port': '9766',
    'http.nio.port': '8003',
    'https.nio.port': '8246',
  };
  t.same(Object.keys(expected).sort(), Object.keys(RUNTIME_PLACEHOLDERS).sort(), 'every runtime placeholder is covered here');
  for (const [name, want] of Object.entries(expected)) t.equal(value(name), want, `\${${name}}`);
  t.equal(c.get('transport.passthru_http.listener.parameters.port'), Number(value('http.nio.port')), 'the port placeholders agree with the effective ports');

  t.test('the host defaults to localhost; the home is the real one', async (t) => {
    const home = tempHome(t, '[server]\nbase_path = "${carbon.host}"\n[sluice.log]\nfile = "${carbon.home}/repository/logs/x.log"\n');
    const loaded = loadConfig(home.dir);
    t.equal(loaded.get('server.base_path'), 'localhost');
    t.equal(loaded.get('sluice.log.file'), `${home.dir}/repository/logs/x.log`);
  });
  t.test('an unknown one', async (t) => {
    t.match(issuesOf(() => load('[server]\nbase_path = "${carbon.homes}"\n')),
      [{ path: 'server.base_path', message: 'unknown runtime placeholder ${carbon.homes}', expected: /^one of \$\{carbon\.home\}, /, suggestion: '${carbon.home}' }]);
    t.match(issuesOf(() => load('[server]\nbase_path = "${java.io.tmpdir}"\n')),
      [{ path: 'server.base_path', message: 'unknown runtime placeholder ${java.io.tmpdir}', suggestion: undefined }]);
  });
});

t.test('text that only looks like a placeholder is kept', async (t) => {
  const c = load('[super_admin]\nusername = "admin"\npassword = "pa$$word$"\n[mediation]\n"synapse.disable_auto_primitive_regex" = "^-?(0|[1-9][0-9]*)(\\\\.[0-9]+)?$"\n');
  t.equal(c.get('super_admin.password'), 'pa$$word$');
  t.equal(c.get('mediation.synapse.disable_auto_primitive_regex'), '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$');
});
