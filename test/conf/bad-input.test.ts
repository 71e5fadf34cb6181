// Bad deployment.toml files through the real CLI (`node bin/sluice.js check-config --home DIR`): each gives
// one clear message naming the file, the line where known, the key path and what was expected; exit 2 for
// errors, 0 when there are only warnings; never a stack trace.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MINIMAL, checkConfig, childEnv, limiter, requireBuild, sluice, tempHome, type CliResult } from './fixtures/helpers.js';

requireBuild();

interface Expect {
  readonly code: 0 | 2;
  readonly severity?: 'error' | 'warning';
  /** How many messages of that severity (default 1). */
  readonly count?: number;
  readonly line?: number;
  readonly column?: number;
  /** The key path the message names. */
  readonly path?: string;
  /** Every pattern must match the message. */
  readonly says?: readonly RegExp[];
  /** Must not match the message. */
  readonly never?: readonly RegExp[];
}

function noStackTrace(t: Tap.Test, r: CliResult): void {
  t.notMatch(r.stdout + r.stderr, /^\s+at .+/m, 'no stack trace');
  t.notMatch(r.stderr, /internal error/, 'not an internal error');
}

/** Checks the one message of `severity` the file gives and returns it. */
function expectMessage(t: Tap.Test, r: CliResult, file: string, e: Expect): string {
  t.equal(r.code, e.code, `exit ${e.code}`);
  noStackTrace(t, r);
  const severity = e.severity ?? (e.code === 2 ? 'error' : 'warning');
  const messages = r.stderr.split('\n').filter((l) => l.startsWith(`${severity}: `));
  t.equal(messages.length, e.count ?? 1, `${e.count ?? 1} ${severity} message(s)`, { stderr: r.stderr });
  const m = messages[0] ?? '';
  let where = `${severity}: ${file}`;
  if (e.line !== undefined) where += `:${e.line}`;
  if (e.column !== undefined) where += `:${e.column}`;
  t.ok(m.startsWith(where + (e.line === undefined ? '' : ':')), `names ${where}`, { message: m });
  if (e.path !== undefined) t.ok(m.includes(` ${e.path}: `), `names ${e.path}`, { message: m });
  for (const re of e.says ?? []) t.match(m, re);
  for (const re of e.never ?? []) t.notMatch(m, re);
  if (e.code === 2) t.match(r.stderr, /the configuration is not valid/);
  else t.match(r.stderr, /configuration OK/);
  return m;
}

interface Case extends Expect {
  readonly toml: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

const ENV_ELEMENT = `[[apim.gateway.environment]]
name = "Default"
description = "d"
service_url = "https://localhost:9443/services/"
username = "admin"
password = "admin"
ws_endpoint = "ws://localhost:9099"
https_endpoint = "https://localhost:8243"
`;

const CASES: Readonly<Record<string, Case>> = {
  // ---- malformed TOML: file, line and column, with the line shown --------------------------------------
  'syntax: a value missing': {
    toml: '[server]\nhostname = "localhost"\noffset = = 3\n', code: 2, line: 3, column: 10,
    says: [/TOML syntax error/],
  },
  'syntax: an unclosed table header': {
    toml: '[server\nhostname = "localhost"\n', code: 2, line: 1, says: [/TOML syntax error/],
  },
  'syntax: an unterminated string': {
    toml: '[server]\nhostname = "localhost\n', code: 2, line: 2, says: [/TOML syntax error/],
  },
  'syntax: the same key twice': {
    toml: '[server]\nhostname = "a"\nhostname = "b"\n', code: 2, line: 3, says: [/TOML syntax error/],
  },
  // ---- wrong types: the key path and what was expected -----------------------------------------------
  'type: text for an integer': {
    toml: '[server]\nhostname = "localhost"\noffset = "abc"\n', code: 2, line: 3, path: 'server.offset',
    says: [/invalid value "abc"/, /expected an integer/],
  },
  'type: a boolean for an integer': {
    toml: `${MINIMAL}[passthru_http]\nworker_pool_size_core = true\n`, code: 2, line: 4, path: 'passthru_http.worker_pool_size_core',
    says: [/expected an integer/],
  },
  'type: a fraction for an integer': {
    toml: `${MINIMAL}[passthru_http]\nio_buffer_size = 1.5\n`, code: 2, line: 4, path: 'passthru_http.io_buffer_size',
    says: [/invalid value 1\.5/, /expected an integer/],
  },
  'type: inf for an integer': {
    toml: '[server]\noffset = inf\n', code: 2, line: 2, path: 'server.offset', says: [/invalid value Infinity/],
  },
  'type: yes for a boolean': {
    toml: `${MINIMAL}[apim.cors]\nallow_credentials = "yes"\n`, code: 2, line: 4, path: 'apim.cors.allow_credentials',
    says: [/expected true or false/],
  },
  'type: not a duration (quoted key)': {
    toml: `${MINIMAL}[passthru_http]\n"http.socket.timeout" = "soon"\n`, code: 2, line: 4, path: 'passthru_http.http.socket.timeout',
    says: [/expected a duration/],
  },
  'type: a number for a list': {
    toml: `${MINIMAL}[apim.cors]\nallow_methods = 5\n`, code: 2, line: 4, path: 'apim.cors.allow_methods',
    says: [/expected a list of strings/],
  },
  'type: a table for a string': {
    toml: '[server]\nhostname = []\n', code: 2, line: 2, path: 'server.hostname', says: [/expected a string/],
  },
  'type: in a repeatable element': {
    toml: `${MINIMAL}${ENV_ELEMENT}display_in_api_console = "maybe"\n`, code: 2, line: 11,
    path: 'apim.gateway.environment[0].display_in_api_console', says: [/expected true or false/],
  },
  'type: a port out of range': {
    toml: `${MINIMAL}[transport.passthru_http]\nlistener.parameters.port = 70000\nlistener.parameters.WSDLEPRPrefix = "x"\n`, code: 2, line: 4,
    path: 'transport.passthru_http.listener.parameters.port', says: [/expected a port number from 1 to 65535/],
  },
  // ---- unknown values of a closed set: the allowed ones, and "did you mean" where close -------------
  'enum: server.server_role': {
    toml: '[server]\nhostname = "localhost"\nserver_role = "gatway-worker"\n', code: 2, line: 3, path: 'server.server_role',
    says: [/invalid value "gatway-worker"/, /expected one of default, api-devportal, api-key-manager, api-publisher, gateway-worker, traffic-manager/, /did you mean gateway-worker\?/],
  },
  'enum: server.server_role, nothing close': {
    toml: '[server]\nserver_role = "banana"\n', code: 2, line: 2, path: 'server.server_role',
    says: [/expected one of default/], never: [/did you mean/],
  },
  'enum: database type': {
    toml: `${MINIMAL}[database.apim_db]\ntype = "postgres"\nurl = "jdbc:postgresql://db:5432/apim"\n`, code: 2, line: 4, path: 'database.apim_db.type',
    says: [/expected one of mysql, h2, mssql, postgre, oracle, db2/, /did you mean postgre\?/],
  },
  'enum: gateway environment type': {
    toml: `${MINIMAL}${ENV_ELEMENT}type = "prod"\n`, code: 2, line: 11, path: 'apim.gateway.environment[0].type',
    says: [/expected one of production, sandbox, hybrid/, /did you mean production\?/],
  },
  'enum: devportal mode': {
    toml: `${MINIMAL}[apim.devportal]\nurl = "https://localhost:9443/devportal"\nmode = "api_only"\n`, code: 2, line: 5, path: 'apim.devportal.mode',
    says: [/expected one of HYBRID, API_ONLY, MCP_ONLY/, /did you mean API_ONLY\?/],
  },
  // ---- required keys ----------------------------------------------------------------------------------
  'required: a key missing in a repeatable element': {
    toml: `${MINIMAL}${ENV_ELEMENT.replace('https_endpoint = "https://localhost:8243"\n', '')}`, code: 2, line: 3,
    path: 'apim.gateway.environment[0]', says: [/required key https_endpoint is missing/],
  },
  'required: the second element': {
    toml: `${MINIMAL}[[custom_message_builders]]\ncontent_type = "text/csv"\nclass = "a.B"\n[[custom_message_builders]]\nclass = "a.C"\n`, code: 2, line: 6,
    path: 'custom_message_builders[1]', says: [/required key content_type is missing/],
  },
  'required: an empty element': {
    toml: `${MINIMAL}[[registry_handler]]\n`, code: 2, count: 2, line: 3, path: 'registry_handler[0]', says: [/required key class is missing/],
  },
  'required: inside a nested element': {
    toml: `${MINIMAL}[[registry_handler]]\nclass = "a"\nfilter_class = "b"\n[[registry_handler.nested_property]]\nenable = true\n`, code: 2, line: 6,
    path: 'registry_handler[0].nested_property[0]', says: [/required key name is missing/],
  },
  'required: in an optional sub-table of an element': {
    toml: `${MINIMAL}${ENV_ELEMENT}[apim.gateway.environment.virtual_host]\nws_endpoint = "ws://gw:9099"\n`, code: 2, line: 11,
    path: 'apim.gateway.environment[0].virtual_host', says: [/required key virtual_host.https_endpoint is missing/],
  },
  // ---- placeholders -----------------------------------------------------------------------------------
  'placeholder: a cycle': {
    toml: '[server]\nhostname = "$ref{server.base_path}"\nbase_path = "https://$ref{server.hostname}:9443"\n', code: 2, line: 2, path: 'server.hostname',
    says: [/placeholder cycle: server\.hostname -> server\.base_path -> server\.hostname/],
  },
  'placeholder: a key referring to itself': {
    toml: '[server]\nhostname = "$conf{server.hostname}"\n', code: 2, line: 2, path: 'server.hostname',
    says: [/placeholder cycle: server\.hostname -> server\.hostname/],
  },
  'placeholder: an unknown $ref': {
    toml: '[server]\nhostname = "$ref{server.hostnam}"\n', code: 2, line: 2, path: 'server.hostname',
    says: [/\$ref\{server\.hostnam\} refers to an unknown key/, /did you mean server\.hostname\?/],
  },
  'placeholder: a $ref to a key with no value': {
    toml: '[server]\nhostname = "localhost"\n[apim.key_manager]\nservice_url = "https://localhost:9443/services/"\npassword = "$ref{super_admin.password}"\n', code: 2, line: 5,
    path: 'apim.key_manager.password', says: [/\$ref\{super_admin\.password\} refers to a key that is not set and has no default/],
  },
  'placeholder: an unset $env variable': {
    toml: '[server]\nhostname = "$env{SLUICE_TEST_SURELY_UNSET}"\n', code: 2, line: 2, path: 'server.hostname',
    says: [/environment variable SLUICE_TEST_SURELY_UNSET is not set/],
  },
  'placeholder: an empty $env': {
    toml: '[server]\nhostname = "$env{}"\n', code: 2, line: 2, path: 'server.hostname', says: [/\$env\{\} names no environment variable/],
  },
  'placeholder: an unknown runtime placeholder': {
    toml: '[server]\nhostname = "localhost"\n[sluice.log]\nfile = "${carbon.hom}/logs/sluice.log"\n', code: 2, line: 4, path: 'sluice.log.file',
    says: [/unknown runtime placeholder \$\{carbon\.hom\}/, /expected one of \$\{carbon\.home\}/, /did you mean \$\{carbon\.home\}\?/],
  },
  // ---- a key set twice ---------------------------------------------------------------------------------
  'twice: dotted, then quoted': {
    toml: `${MINIMAL}[passthru_http]\nhttp.socket.timeout = 6000\n"http.socket.timeout" = 5000\n`, code: 2, line: 5, path: 'passthru_http.http.socket.timeout',
    says: [/set twice \(lines 4 and 5, once as a dotted key, once as a quoted key\); keep one/],
  },
  'twice: quoted, then dotted': {
    toml: `${MINIMAL}[transport.passthru_http]\n"listener.parameters.port" = 8281\nlistener.parameters.port = 8282\n`, code: 2, line: 5,
    path: 'transport.passthru_http.listener.parameters.port', says: [/set twice/],
  },
  // ---- unknown keys: a warning with the closest known key; an error with --strict -----------------------
  'unknown key: a warning': {
    toml: `${MINIMAL}[passthru_http]\nworker_pool_size_cor = 10\n`, code: 0, severity: 'warning', line: 4, path: 'passthru_http.worker_pool_size_cor',
    says: [/unknown key; did you mean passthru_http\.worker_pool_size_core\?/],
  },
  'unknown key: an error with --strict': {
    toml: `${MINIMAL}[passthru_http]\nworker_pool_size_cor = 10\n`, args: ['--strict'], code: 2, line: 4, path: 'passthru_http.worker_pool_size_cor',
    says: [/unknown key; did you mean passthru_http\.worker_pool_size_core\?/],
  },
  'unknown key: a misspelt section': {
    toml: `${MINIMAL}[servr]\noffset = 10\n`, code: 0, severity: 'warning', line: 4, path: 'servr.offset', says: [/did you mean server\.offset\?/],
  },
  'unknown key: nothing close': {
    toml: `${MINIMAL}foo = 1\n`, code: 0, severity: 'warning', line: 3, path: 'server.foo', says: [/unknown key/], never: [/did you mean/],
  },
  // ---- rules across keys ------------------------------------------------------------------------------
  'rule: allow_credentials with origin *': {
    toml: `${MINIMAL}[apim.cors]\nallow_credentials = true\n`, code: 2, line: 4, path: 'apim.cors.allow_credentials',
    says: [/allow_credentials = true needs explicit allow_origins, not "\*"/],
  },
  'rule: allow_credentials with origin null': {
    toml: `${MINIMAL}[apim.cors]\nallow_origins = ["https://app.example", "null"]\nallow_credentials = true\n`, code: 2, line: 5, path: 'apim.cors.allow_credentials',
    says: [/cannot be combined with the origin "null"/],
  },
  'rule: both token caches': {
    toml: `${MINIMAL}[apim.cache.km_token]\nenable = true\n`, code: 2, line: 4, path: 'apim.cache.km_token.enable',
    says: [/either the gateway token cache .* or the key manager token cache .*not both/],
  },
  'rule: worker_pool_size_max below core': {
    toml: `${MINIMAL}[passthru_http]\nworker_pool_size_core = 50\nworker_pool_size_max = 10\n`, code: 2, line: 5, path: 'passthru_http.worker_pool_size_max',
    says: [/worker_pool_size_max \(10\) is below worker_pool_size_core \(50\)/],
  },
  'rule: a blocking pass-through listener': {
    toml: `${MINIMAL}[transport.passthru_http]\nlistener.parameters.WSDLEPRPrefix = "http://localhost:8280"\nlistener.parameters.non-blocking = false\n`, code: 2, line: 5,
    path: 'transport.passthru_http.listener.parameters.non-blocking', says: [/non-blocking only/, /\[transport\.blocking_http\]/],
  },
  'rule: url and hostname (a warning)': {
    toml: `${MINIMAL}[database.apim_db]\ntype = "postgre"\nurl = "jdbc:postgresql://db:5432/apim"\nhostname = "other"\nport = 5433\n`, code: 0, severity: 'warning', line: 5,
    path: 'database.apim_db.url', says: [/url is set, so hostname and port are ignored/],
  },
  'rule: an unsupported database type': {
    toml: `${MINIMAL}[database.apim_db]\ntype = "mysql"\nurl = "jdbc:mysql://db:3306/apim"\n`, code: 2, line: 4, path: 'database.apim_db.type',
    says: [/type "mysql" is accepted by the catalog but Sluice stores data only in/],
  },
  'rule: a server database without url or hostname': {
    toml: `${MINIMAL}[database.apim_db]\ntype = "postgre"\n`, code: 2, line: 4, path: 'database.apim_db.type', says: [/needs url, or hostname and port/],
  },
  'rule: an offset pushing ports past 65535': {
    toml: '[server]\nhostname = "localhost"\noffset = 56000\n', code: 2, line: 3, path: 'server.offset',
    says: [/offset 56000 moves 5 ports outside 1\.\.65535/, /transport\.http\.properties\.port 9763 -> 65763/],
  },
};

// The cases run side by side (each is a process start); each subtest then reads its own result.
const run = limiter(4);
const started = Object.entries(CASES).map(([name, c]) => {
  const home = tempHome(t, c.toml);
  const env = childEnv(c.env);
  delete env['SLUICE_TEST_SURELY_UNSET'];
  return { name, c, home, result: run(() => checkConfig(home.dir, c.args ?? [], { env })) };
});
for (const { name, c, home, result } of started) {
  t.test(name, async (t) => {
    const r = await result;
    expectMessage(t, r, home.file, c);
    t.equal(r.stdout, '', 'nothing on stdout');
  });
}

t.test('several errors are all reported, each located', async (t) => {
  const home = tempHome(t, '[server]\noffset = "x"\nserver_role = "nope"\n[apim.cors]\nallow_credentials = "maybe"\n');
  const r = await checkConfig(home.dir);
  t.equal(r.code, 2);
  noStackTrace(t, r);
  t.match(r.stderr, `error: ${home.file}:2: server.offset:`);
  t.match(r.stderr, `error: ${home.file}:3: server.server_role:`);
  t.match(r.stderr, `error: ${home.file}:5: apim.cors.allow_credentials:`);
  t.match(r.stderr, /3 error\(s\)/);
});

t.test('a file that cannot be read', async (t) => {
  t.test('permission denied', async (t) => {
    const home = tempHome(t, MINIMAL);
    fs.chmodSync(home.file, 0o000);
    // Root reads any file: run the CLI as nobody, with the home opened up to it but the file still closed.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) for (const d of [home.dir, path.dirname(path.dirname(home.file)), path.dirname(home.file)]) fs.chmodSync(d, 0o755);
    const r = await checkConfig(home.dir, [], asRoot ? { uid: 65534, gid: 65534 } : {});
    expectMessage(t, r, home.file, { code: 2, says: [/cannot read the configuration: permission denied/] });
  });
  t.test('no file', async (t) => {
    const home = tempHome(t, null);
    const r = await checkConfig(home.dir);
    expectMessage(t, r, home.file, { code: 2, says: [/cannot read the configuration: file not found/] });
  });
  t.test('a directory in its place', async (t) => {
    const home = tempHome(t, null);
    fs.mkdirSync(home.file);
    const r = await checkConfig(home.dir);
    expectMessage(t, r, home.file, { code: 2, says: [/cannot read the configuration: is a directory, not a file/] });
  });
  t.test('no home', async (t) => {
    const home = tempHome(t, null);
    const missing = path.join(home.dir, 'nowhere');
    const r = await checkConfig(missing);
    expectMessage(t, r, path.join(missing, 'repository/conf/deployment.toml'), { code: 2, says: [/file not found/] });
  });
});

t.test('a bad command line is one line of usage, exit 2', async (t) => {
  for (const args of [['check-config', '--home'], ['check-config', 'extra'], ['check-config', '--strict=yes'], ['check-config', '--bogus'], ['no-such-command']]) {
    const r = await sluice(args);
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    noStackTrace(t, r);
    t.match(r.stderr, /^sluice: .+\n$/, `${args.join(' ')}: one line`, { stderr: r.stderr });
  }
});

t.test('--help', async (t) => {
  const r = await sluice(['check-config', '--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /sluice check-config \[--home DIR\] \[--strict\] \[--print\]/);
  t.match(r.stdout, /--strict {10}unknown deployment\.toml keys are errors/);
});
