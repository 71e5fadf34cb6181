// conf/views/mediation.ts: [mediation] keys, builders and formatters from deployment.toml, read through the
// typed catalog paths; Java class names are accepted (built-in codec), JS module paths become custom codecs.
import path from 'node:path';
import t from 'tap';
import { HomeLayout } from '../../conf/home.js';
import { loadConfigText } from '../../conf/loader.js';
import { mediationView, unusedKeys } from '../../conf/typed-config.js';
import { loadCodecs } from '../../mediation/index.js';
import { tmpDir } from './fixtures/helpers.js';

const BASE = '# mediation keys only\n';

t.test('defaults', async (t) => {
  const home = tmpDir(t);
  const config = loadConfigText(BASE, path.join(home, 'deployment.toml'), new HomeLayout(home));
  const view = mediationView(config);
  t.equal(view.sequencesDir, path.join(home, 'repository/deployment/server/synapse-configs/default/sequences'));
  t.equal(view.globalTimeoutMs, 120000);
  t.same(view.codecs, { builders: [], formatters: [], disableAutoPrimitiveRegex: null, preserveNamespaceOnXmlToJson: false, home });
  t.same(structuredClone(view), view, 'plain data, can be posted to io threads');
  t.same(await loadCodecs(view.codecs).then(() => 'loaded'), 'loaded');
});

t.test('builders, formatters, custom forms and blocking variants', async (t) => {
  const home = tmpDir(t);
  const toml = `${BASE}
[mediation]
"synapse.global_timeout_interval" = "30s"
"synapse.disable_auto_primitive_regex" = "^-?(0|[1-9][0-9]*)$"
"synapse.preserve_namespace_on_xml_to_json" = true

[message_builders]
application_json = "org.apache.synapse.commons.json.JsonStreamBuilder"
text_plain = "lib/text-builder.mjs"

[blocking.message_builders]
text_plain = "lib/other.mjs"
application_xml = "lib/xml-builder.js"

[message_formatters]
soap_xml = "/opt/acme/soap12.mjs"

[[custom_message_builders]]
content_type = "text/csv"
class = "lib/csv.mjs"

[[blocking.custom_message_formatters]]
content_type = "application/x-acme"
class = "lib/acme.cjs"

[[custom_message_formatters]]
content_type = "application/xml+legacy"
class = "org.acme.LegacyFormatter"
`;
  const config = loadConfigText(toml, path.join(home, 'deployment.toml'), new HomeLayout(home));
  const view = mediationView(config);
  t.equal(view.globalTimeoutMs, 30000);
  t.equal(view.codecs.disableAutoPrimitiveRegex, '^-?(0|[1-9][0-9]*)$');
  t.equal(view.codecs.preserveNamespaceOnXmlToJson, true);
  t.same(view.codecs.builders, [
    { contentType: 'application/xml', module: 'lib/xml-builder.js' },
    { contentType: 'text/plain', module: 'lib/text-builder.mjs' },
    { contentType: 'text/csv', module: 'lib/csv.mjs' },
  ], 'the non-blocking key wins; a Java class name keeps the built-in');
  t.same(view.codecs.formatters, [
    { contentType: 'application/soap+xml', module: '/opt/acme/soap12.mjs' },
    { contentType: 'application/x-acme', module: 'lib/acme.cjs' },
  ]);
  t.same(unusedKeys(config), [], 'every key written is read by a view');
});
