// A log mediator writes request data into the main log: every value is escaped (no forged line, no raw
// terminal escape: test/fixtures/attacks/log-values.json), and credentials are masked at every level
// (Authorization, Proxy-Authorization, Cookie, Set-Cookie, API keys, the configured auth header, query keys).
// A real gateway with the default text log, a real backend; the log file is read as an operator would.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';

const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';
const HERE = path.dirname(fileURLToPath(import.meta.url));
interface LogCase { readonly id: string; readonly value: string; readonly expect: 'escaped' | 'unchanged'; readonly source: string }
const corpus = JSON.parse(fs.readFileSync(path.join(HERE, '../fixtures/attacks/log-values.json'), 'utf8')) as { values: LogCase[] };

const seq = (name: string, body: string): string => `<sequence xmlns="http://ws.apache.org/ns/synapse" name="${name}">\n${body}\n</sequence>\n`;
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

t.test('log mediator values are escaped and credentials masked in the text log', async (t) => {
  const be = await echoBackend(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'id=sekret-setcookie; HttpOnly' });
    res.end('{"served":true}');
    return true;
  });
  const s = await startSluice(t, { sluice: { log: { format: 'text', level: 'info' } }, apim: { oauth_config: { auth_header: 'X-Gw-Auth' } } }, {
    [`${SEQ_DIR}/log_probe.xml`]: seq('log_probe', `  <log level="custom" category="INFO" separator=" | ">
    <property name="case" expression="json-eval($.n)"/>
    <property name="user" expression="json-eval($.u)"/>
  </log>`),
    [`${SEQ_DIR}/log_secrets.xml`]: seq('log_secrets', `  <log level="simple"/>
  <log level="headers"/>
  <log level="full"/>
  <log level="custom">
    <property name="cookie-copy" expression="$trp:Cookie"/>
    <property name="both" expression="concat($trp:X-Gw-Auth, '/', $trp:apikey)"/>
    <property name="Authorization" expression="json-eval($.u)"/>
  </log>`),
    [`${SEQ_DIR}/log_out.xml`]: seq('log_out', '  <log level="full" category="INFO"/>'),
    [`${API_DIR}/logged.toml`]: apiToml({ name: 'Logged', context: '/logged', production: be.url, verbs: ['POST'], extra: 'in_sequence = "log_probe"' }),
    [`${API_DIR}/secrets.toml`]: apiToml({ name: 'Secrets', context: '/secrets', production: be.url, verbs: ['POST'], extra: 'in_sequence = "log_secrets"\nout_sequence = "log_out"' }),
  });
  const logFile = path.join(s.home.dir, 'repository/logs/sluice.log');
  const lines = (): string[] => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n') : []);

  for (const c of corpus.values) {
    const r = await request(s.url('/logged/1.0.0/x'), { method: 'POST', body: JSON.stringify({ n: c.id, u: c.value }), headers: { 'content-type': 'application/json' } });
    t.equal(r.status, 200, `${c.id}: the call goes on`);
  }
  await eventually(() => lines().some((l) => l.includes(`case = ${corpus.values.at(-1)!.id} `)), 'the last probe line in the log');
  const all = lines();
  for (const c of corpus.values) {
    const mine = all.filter((l) => l.includes(`case = ${c.id} |`));
    t.equal(mine.length, 1, `${c.id} (${c.source}): one log line`);
    const line = mine[0] ?? '';
    t.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO /, `${c.id}: the line is a real record`);
    t.notMatch(line, RAW_CONTROL, `${c.id}: no raw control character in the line`);
    if (c.expect === 'unchanged') t.ok(line.includes(`user = ${c.value} `) || line.endsWith(`user = ${c.value}`), `${c.id}: written as it is`);
    else t.match(line, /user = .*\\(n|r|t|u00[0-9a-f]{2}|u2028|u2029)/, `${c.id}: written escaped`);
  }
  t.notOk(all.some((l) => l.startsWith('2026-11-25T00:00:00.000Z')), 'no forged record begins a line');
  t.notOk(all.some((l) => l.startsWith('ADMIN OK')), 'no carriage-return overwrite begins a line');
  t.notOk(all.some((l) => RAW_CONTROL.test(l)), 'no raw control character anywhere in the log');

  const secrets = {
    authorization: 'Bearer sekret-authorization',
    'proxy-authorization': 'Basic sekret-proxy',
    cookie: 'session=sekret-cookie',
    apikey: 'sekret-apikey',
    'x-api-key': 'sekret-x-api-key',
    'x-gw-auth': 'Bearer sekret-gw-auth',
  };
  const r = await request(s.url('/secrets/1.0.0/x?apikey=sekret-query&page=2'), { method: 'POST', body: '{"u":"named-like-a-credential"}', headers: { ...secrets, 'content-type': 'application/json' } });
  t.equal(r.status, 200);
  await eventually(() => lines().some((l) => l.includes('Direction: response')), 'the out sequence\'s log line');
  const text = lines().join('\n');
  const leaked = ['sekret-authorization', 'sekret-proxy', 'sekret-cookie', 'sekret-apikey', 'sekret-x-api-key', 'sekret-gw-auth', 'sekret-query', 'sekret-setcookie']
    .filter((v) => text.includes(v));
  t.same(leaked, [], 'no credential in clear, at any level');
  t.match(text, /cookie: \*{8}/i, 'headers are listed with their values masked');
  t.match(text, /set-cookie: \*{8}/i, 'the backend\'s Set-Cookie is masked too');
  t.match(text, /page=2/, 'the rest of the query is kept');
  t.match(text, /cookie-copy = \*{8}, both = \*{8}, Authorization = \*{8}/, 'custom properties reading a credential header, or named like one, are masked');
  t.match(text, /Payload: \{"u":/, 'the payload is logged at level full');
});
