// server.offset: added to every runtime port (the catalog's `port: true` keys), written or defaulted; other
// ports (database, mail, Redis, proxies, remote collectors) are someone else's and stay as written.
import path from 'node:path';
import t from 'tap';
import { catalogIndex } from '../../conf/catalog/index.js';
import type { ScalarPath } from '../../conf/catalog/index.js';
import { ConfigError } from '../../conf/errors.js';
import { HomeLayout } from '../../conf/home.js';
import { loadConfigText } from '../../conf/loader.js';
import { ports } from '../../conf/typed-config.js';

const HOME = '/srv/sluice-home';
const load = (toml: string) => loadConfigText(toml, path.join(HOME, 'repository/conf/deployment.toml'), new HomeLayout(HOME), { env: {} });
const withOffset = (offset: number | string, rest = '') => load(`[server]\nhostname = "localhost"\noffset = ${JSON.stringify(offset)}\n${rest}`);

const PORT_KEYS = catalogIndex.all.filter((s) => s.port);

t.test('the runtime ports are the ones that shift', async (t) => {
  t.same(PORT_KEYS.filter((s) => s.repeatable).map((s) => s.path), [], 'no port key in a repeatable section');
  const byDefault = new Map(PORT_KEYS.map((s) => [s.default, s.path]));
  // The listeners the reference system shifts: pass-through, servlet, binary receiver, event hub, debuggers.
  for (const p of [8280, 8243, 9443, 9763, 9611, 9711, 9005, 9006, 10005, 11224]) t.ok(byDefault.has(p), `${p} (${byDefault.get(p) ?? 'no key'}) shifts`);
  for (const p of ['database.apim_db.port', 'apim.notification.port', 'output_adapter.email.port', 'apim.redis_config.port',
    'apim.open_tracer.remote_tracer.properties.port', 'transport.passthru_http.sender.http.proxyPort', 'transport.http.proxy_profile[].proxy_port']) {
    t.notOk(catalogIndex.exact.get(p)?.port, `${p} is not a listener of this node`);
  }
});

t.test('every port key, defaulted, moves by the offset', async (t) => {
  const base = withOffset(0);
  const shifted = withOffset(100);
  for (const spec of PORT_KEYS) {
    const p = spec.path as ScalarPath;
    t.equal(base.get(p), spec.default, `${p}: default ${String(spec.default)}`);
    t.equal(shifted.get(p), (spec.default as number) + 100, `${p}: +100`);
  }
});

t.test('every port key, written, moves by the offset', async (t) => {
  // Each port written as 20000 + its index, under its own section.
  const sections = new Map<string, string[]>();
  PORT_KEYS.forEach((spec, i) => {
    const lines = sections.get(spec.section) ?? [];
    lines.push(`${spec.key.includes('.') ? JSON.stringify(spec.key) : spec.key} = ${20000 + i}`);
    sections.set(spec.section, lines);
  });
  const text = [...sections].map(([s, lines]) => `[${s}]\n${lines.join('\n')}\n`).join('');
  const c = withOffset(7, text.replace(/\[transport\.passthru_https?\]\n/g, (h) => `${h}"listener.parameters.WSDLEPRPrefix" = "x"\n`));
  PORT_KEYS.forEach((spec, i) => t.equal(c.get(spec.path as ScalarPath), 20000 + i + 7, spec.path));
});

t.test('ports that are not this node\'s do not move', async (t) => {
  const c = withOffset(100, '[database.apim_db]\ntype = "postgre"\nurl = "jdbc:postgresql://db:5432/apim"\nport = 5432\n[apim.notification]\nport = 25\n[apim.redis_config]\nport = 6379\n[transport.passthru_http]\nsender.http.proxyHost = "proxy"\nsender.http.proxyPort = 3128\nlistener.parameters.WSDLEPRPrefix = "x"\n');
  t.equal(c.get('database.apim_db.port'), 5432);
  t.equal(c.get('apim.notification.port'), 25);
  t.equal(c.get('apim.redis_config.port'), 6379);
  t.equal(c.get('apim.open_tracer.remote_tracer.properties.port'), 9411);
  t.equal(c.get('transport.passthru_http.sender.http.proxyPort'), 3128);
});

t.test('the offset as written', async (t) => {
  t.equal(withOffset(0).get('transport.passthru_http.listener.parameters.port'), 8280, 'zero');
  t.equal(withOffset(-80).get('transport.passthru_http.listener.parameters.port'), 8200, 'negative');
  t.equal(withOffset('10').get('transport.passthru_http.listener.parameters.port'), 8290, 'a quoted number');
  t.same(ports(withOffset(2)), { offset: 2, passthruHttp: 8282, passthruHttps: 8245, servletHttps: 9445, servletHttp: 9765, binaryTcp: 9613, binarySsl: 9713 }, 'the ports view');
  t.match((withOffset(5).effective() as { transport: { https: { properties: { port: number } } } }).transport.https.properties.port, 9448, 'the effective configuration');
});

t.test('a port pushed past 65535 is refused, in one message', async (t) => {
  let err: unknown;
  try { withOffset(56000); } catch (e) { err = e; }
  t.ok(err instanceof ConfigError);
  const issues = (err as ConfigError).issues;
  t.equal(issues.length, 1);
  t.match(issues[0], { path: 'server.offset', line: 3, message: /^offset 56000 moves 5 ports outside 1\.\.65535: / });
  for (const p of ['transport.http.properties.port 9763 -> 65763', 'transport.receiver.tcpPort 9611 -> 65611', 'transport.receiver.sslPort 9711 -> 65711',
    'apim.throttling.event_sync.port 11224 -> 67224', 'apim.throttling.event_management.port 10005 -> 66005']) t.match(issues[0]!.message, p);
  t.throws(() => withOffset(65536 - 11224), { issues: [{ message: 'offset 54312 moves a port outside 1..65535: apim.throttling.event_sync.port 11224 -> 65536' }] }, 'one port, by one');
  t.throws(() => withOffset(10, '[transport.passthru_http]\nlistener.parameters.port = 65530\nlistener.parameters.WSDLEPRPrefix = "x"\n'),
    { issues: [{ path: 'server.offset', message: 'offset 10 moves a port outside 1..65535: transport.passthru_http.listener.parameters.port 65530 -> 65540' }] });
  t.throws(() => withOffset(-9000), { issues: [{ path: 'server.offset', message: /outside 1\.\.65535: .*8280 -> -720/ }] });
  t.doesNotThrow(() => withOffset(65535 - 11224), 'the highest offset that fits');
});
