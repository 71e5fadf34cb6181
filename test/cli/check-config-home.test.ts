import t from 'tap';
import { requireBuild } from '../fixtures/sluice-process.js';
import { makeHome, API_DIR } from '../helpers/home.js';
import { cli } from './helpers.js';

requireBuild();

const APPS = 'repository/deployment/server/applications';
const POLICIES = 'repository/deployment/server/policies';
const SEQUENCES = 'repository/deployment/server/synapse-configs/default/sequences';

const API = `name = "Orders"
context = "/orders"
version = "1.0.0"
[endpoints]
production = "http://127.0.0.1:9/"
[[resources]]
verb = "GET"
uri_template = "/*"
auth_type = "None"
`;

t.test('the project\'s own home passes, and the summary counts every kind of file', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  const r = await cli(['check-config', '--home', home.dir]);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stderr, /configuration OK: .*deployment\.toml and \d+ API file\(s\), \d+ application file\(s\), \d+ policy file\(s\), \d+ sequence file\(s\)/);
});

/** One broken file at a time: exit 2, the file, the line and the key path on stderr. */
const BROKEN: [string, string, string, RegExp][] = [
  ['an API file with a number for context', `${API_DIR}/broken.toml`, 'name = "Broken"\ncontext = 5\nversion = "1.0.0"\n', /broken\.toml:2: context: expected a string, got 5/],
  ['an API file with an unknown field', `${API_DIR}/typo.toml`, API.replace('version = "1.0.0"', 'version = "1.0.0"\nlifecycle = "PUBLISHED"'), /typo\.toml:4: lifecycle: unknown field "lifecycle"/],
  ['an API resource with a bad verb', `${API_DIR}/verb.toml`, API.replace('verb = "GET"', 'verb = "FETCH"'), /verb\.toml:7: resources\[0\]\.verb: expected one of GET, POST/],
  ['an API endpoint that is not a URL', `${API_DIR}/url.toml`, API.replace('"http://127.0.0.1:9/"', '"127.0.0.1:9"'), /url\.toml:5: endpoints\.production: "127\.0\.0\.1:9" is not a URL/],
  ['an API file that is not TOML', `${API_DIR}/syntax.toml`, 'name = "X"\ncontext = \n', /syntax\.toml:2:\d+: TOML syntax error/],
  ['an application with a bad key type', `${APPS}/bad-app.toml`, 'name = "BadApp"\n[[keys]]\nkey_type = "PROD"\nclient_id = "bad-app"\nclient_secret = "s"\n', /bad-app\.toml:3: keys\[0\]\.key_type/],
  ['a policy with zero requests', `${POLICIES}/bad-policy.toml`, '[[advanced]]\nname = "Zero"\nrequests = 0\n', /bad-policy\.toml:3: advanced\[0\]\.requests: expected a positive integer, got 0/],
  ['a sequence that is not XML', `${SEQUENCES}/broken.xml`, '<sequence name="broken" xmlns="http://ws.apache.org/ns/synapse">\n  <log level="full">\n</sequence>\n', /broken\.xml:\d+/],
  ['a sequence naming a sequence that does not exist', `${SEQUENCES}/caller.xml`, '<sequence name="caller" xmlns="http://ws.apache.org/ns/synapse">\n  <sequence key="nowhere"/>\n</sequence>\n', /caller\.xml:2: .*sequence key "nowhere" names no deployed sequence/],
];

for (const [what, rel, text, want] of BROKEN) {
  t.test(`check-config fails on ${what}, with file:line and the key`, async (t) => {
    const home = await makeHome({}, { [rel]: text });
    t.teardown(() => home.cleanup());
    const r = await cli(['check-config', '--home', home.dir]);
    t.equal(r.status, 2, `exit 2 (${r.stderr})`);
    t.match(r.stderr, want);
    t.match(r.stderr, /^error: /m);
    t.notMatch(r.stderr, /configuration OK/);
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
}

t.test('checks across files: one API name and version, one application name, one client id', async (t) => {
  const home = await makeHome({}, {
    [`${API_DIR}/a.toml`]: API,
    [`${API_DIR}/b.toml`]: API,
    [`${APPS}/one.toml`]: 'name = "One"\n[[keys]]\nkey_type = "PRODUCTION"\nclient_id = "shared-id"\nclient_secret = "s1"\n',
    [`${APPS}/two.toml`]: 'name = "Two"\n[[keys]]\nkey_type = "PRODUCTION"\nclient_id = "shared-id"\nclient_secret = "s2"\n',
  });
  t.teardown(() => home.cleanup());
  const r = await cli(['check-config', '--home', home.dir]);
  t.equal(r.status, 2);
  t.match(r.stderr, /b\.toml: API Orders:1\.0\.0 is already defined in .*a\.toml/);
  t.match(r.stderr, /two\.toml: client_id "shared-id" is already used in .*one\.toml/);
  t.match(r.stderr, /2 error\(s\): 1 in API files, 1 in application files/);
});

t.test('two APIs on one context and version deploy, but only one gets the calls: a warning, exit 0', async (t) => {
  const home = await makeHome({}, { [`${API_DIR}/a.toml`]: API, [`${API_DIR}/b.toml`]: API.replace('name = "Orders"', 'name = "Orders2"') });
  t.teardown(() => home.cleanup());
  const r = await cli(['check-config', '--home', home.dir]);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stderr, /warning: .*b\.toml: API Orders2:1\.0\.0 serves \/orders\/1\.0\.0, as Orders:1\.0\.0/);
});

t.test('--strict as before: an unknown deployment.toml key fails; without it, a warning', async (t) => {
  const home = await makeHome({ server: { offst: 1 } });
  t.teardown(() => home.cleanup());
  const lax = await cli(['check-config', '--home', home.dir]);
  t.equal(lax.status, 0);
  t.match(lax.stderr, /warning: .*server\.offst: unknown key; did you mean server\.offset\?/);
  const strict = await cli(['check-config', '--home', home.dir, '--strict']);
  t.equal(strict.status, 2);
  t.match(strict.stderr, /error: .*server\.offst/);
});
