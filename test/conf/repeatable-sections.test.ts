// Arrays of tables: [[section]] elements get their defaults and required keys one by one; a repeatable section
// written under an element of another ([[registry_handler]] then [[registry_handler.nested_property]]) belongs
// to that element, as TOML nests it.
import path from 'node:path';
import t from 'tap';
import { ConfigError } from '../../conf/errors.js';
import { HomeLayout } from '../../conf/home.js';
import { loadConfigText } from '../../conf/loader.js';

const HOME = '/srv/sluice-home';
const load = (toml: string) => loadConfigText(toml, path.join(HOME, 'repository/conf/deployment.toml'), new HomeLayout(HOME), { env: {} });
function issuesOf(toml: string): ConfigError['issues'] {
  try { load(toml); } catch (err) { if (err instanceof ConfigError) return err.issues; throw err; }
  throw new Error('expected a ConfigError');
}

const HANDLERS = `[server]
hostname = "localhost"
[[registry_handler]]
class = "a.First"
filter_class = "a.Filter"
[[registry_handler.nested_property]]
name = "p1"
[[registry_handler]]
class = "a.Second"
filter_class = "a.Filter"
[[registry_handler.nested_property]]
name = "p2"
type = "null"
[[registry_handler.nested_property]]
name = "p3"
`;

t.test('nested elements stay with their parent element', async (t) => {
  const c = load(HANDLERS);
  const handlers = c.items('registry_handler');
  t.equal(handlers.length, 2);
  t.match(handlers[0], { class: 'a.First', nested_property: [{ name: 'p1', enable: false, type: 'xml' }] });
  t.match(handlers[1], { class: 'a.Second', nested_property: [{ name: 'p2', type: 'null' }, { name: 'p3', type: 'xml' }] });
  t.same(c.items('registry_handler.nested_property').map((p) => p['name']), ['p1', 'p2', 'p3'], 'all nested elements, in file order');
  const eff = c.effective() as { registry_handler: { class: string; nested_property: { name: string }[] }[] };
  t.same(eff.registry_handler.map((h) => [h.class, h.nested_property.map((p) => p.name)]), [['a.First', ['p1']], ['a.Second', ['p2', 'p3']]], 'and so in the effective configuration');
});

t.test('a nested section written without a parent element is a list of its own', async (t) => {
  const c = load('[server]\nhostname = "localhost"\n[[registry_handler.nested_property]]\nname = "alone"\n');
  t.match(c.items('registry_handler.nested_property'), [{ name: 'alone', enable: false, type: 'xml' }]);
});

t.test('issuers and their claim mappings', async (t) => {
  const c = load(`[server]\nhostname = "localhost"
[[apim.jwt.issuer]]
name = "idp-a"
[apim.jwt.issuer.jwks]
url = "https://a.example/jwks"
[[apim.jwt.issuer.claim_mapping]]
remote_claim = "sub"
local_claim = "http://wso2.org/claims/enduser"
[[apim.jwt.issuer]]
name = "idp-b"
[[apim.jwt.issuer.claim_mapping]]
remote_claim = "email"
local_claim = "http://wso2.org/claims/emailaddress"
`);
  t.match(c.items('apim.jwt.issuer'), [
    { name: 'idp-a', 'jwks.url': 'https://a.example/jwks', claim_mapping: [{ remote_claim: 'sub' }] },
    { name: 'idp-b', claim_mapping: [{ remote_claim: 'email' }] },
  ]);
  t.equal(c.items('apim.jwt.issuer')[1]!['jwks.url'], undefined);
});

t.test('required keys, element by element', async (t) => {
  t.match(issuesOf('[[registry_handler]]\n'), [
    { path: 'registry_handler[0]', line: 1, message: 'required key class is missing' },
    { path: 'registry_handler[0]', line: 1, message: 'required key filter_class is missing' },
  ], 'an element that sets nothing');
  t.match(issuesOf(`${HANDLERS}[[registry_handler.nested_property]]\nenable = true\n`),
    [{ path: 'registry_handler[1].nested_property[2]', line: 16, message: 'required key name is missing' }], 'a nested element, located');
  t.match(issuesOf('[[custom_message_formatters]]\ncontent_type = 5\nclass = []\n'),
    [{ path: 'custom_message_formatters[0].class', line: 3, message: 'invalid value []' }], 'a key written with a bad value is not also reported missing');
});
