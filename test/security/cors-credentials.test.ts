// Credentialed CORS is never granted to "*" or "null" (issue 18 item 5). The attack corpus is
// test/fixtures/attacks/cors-credentialed-origins.json (origins from public CORS research, sources named there).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSecured, securedApiToml } from '../helpers/secured.js';
import { echoBackend, request, type ClientResponse } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';
import { adminClient, ADMIN } from '../operations/helpers/node.js';
import type { ApiDefinition } from '../../engine/registry/types.js';

const CORPUS = JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/attacks/cors-credentialed-origins.json'), 'utf8')) as {
  allowed: string; attacks: { origin: string; why: string }[];
};

/** Whether a response hands credentials to this origin. */
const credentialedFor = (r: ClientResponse, origin: string): boolean =>
  r.headers['access-control-allow-origin'] === origin && r.headers['access-control-allow-credentials'] === 'true';

/** A simple GET and a preflight from an origin. */
async function probe(url: string, origin: string): Promise<ClientResponse[]> {
  return [
    await request(url, { headers: { origin } }),
    await request(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } }),
  ];
}

const corsApi = (name: string, context: string, production: string, cors: string): string =>
  securedApiToml({ name, context, production, authType: 'None', extra: '' }) + `\n[cors]\nenable = true\n${cors}\n`;

t.test('an API file asking for credentials without origins of its own, or with "null", is refused; no origin gets credentials', async (t) => {
  const be = await echoBackend(t);
  // The default home's [apim.cors] allows "*": an API that inherited it with credentials echoed every origin.
  const s = await startSecured(t, {
    apis: {
      inherits: corsApi('Inherits', '/inherits', be.url, 'allow_credentials = true'),
      nullorigin: corsApi('NullOrigin', '/nullorigin', be.url, `allow_credentials = true\nallow_origins = ["${CORPUS.allowed}", "null"]`),
      wildcard: corsApi('Wildcard', '/wildcard', be.url, 'allow_credentials = true\nallow_origins = ["*"]'),
      plain: corsApi('Plain', '/plain', be.url, 'allow_origins = ["*"]'),
    },
  });
  for (const [file, name] of [['inherits', 'Inherits'], ['nullorigin', 'NullOrigin'], ['wildcard', 'Wildcard']] as const) {
    const line = await eventually(() => s.home.logs().find((l) => /API not deployed/.test(String(l['msg'])) && String(l['file']).endsWith(`${file}.toml`)), `${file}.toml to be refused`);
    t.match(String(line['msg']), /cors\.allow_(credentials|origins)/, `${name}: the refusal names the key`);
    t.equal((await request(s.url(`/${file}/1.0.0/x`))).status, 404, `${name}: not deployed`);
  }
  for (const { origin, why } of CORPUS.attacks) {
    for (const ctx of ['inherits', 'nullorigin', 'wildcard']) {
      for (const r of await probe(s.url(`/${ctx}/1.0.0/x`), origin)) t.notOk(credentialedFor(r, origin), `${ctx}: ${origin} (${why}) gets no credentials`);
    }
  }
  // Control: without credentials the wildcard stays a wildcard.
  const open = await request(s.url('/plain/1.0.0/x'), { headers: { origin: 'https://any.example' } });
  t.equal(open.status, 200, 'control: an API without credentials deploys');
  t.equal(open.headers['access-control-allow-origin'], '*');
  t.equal(open.headers['access-control-allow-credentials'], undefined);
});

t.test('credentialed CORS grants exactly the listed origin: every origin of the corpus is refused, the listed one is served', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { listed: corsApi('Listed', '/listed', be.url, `allow_credentials = true\nallow_origins = ["${CORPUS.allowed}"]`) },
  });
  const url = s.url('/listed/1.0.0/x');
  for (const { origin, why } of CORPUS.attacks) {
    for (const r of await probe(url, origin)) t.notOk(credentialedFor(r, origin) || r.headers['access-control-allow-origin'] === '*', `${origin} (${why}) gets no CORS grant`);
  }
  const [get, pre] = await probe(url, CORPUS.allowed);
  t.ok(credentialedFor(get!, CORPUS.allowed), 'control: the listed origin gets credentials on a call');
  t.ok(credentialedFor(pre!, CORPUS.allowed), 'control: and on a preflight');
  t.match(get!.headers['vary'], /Origin/, 'Vary: Origin');
});

t.test('the admin API refuses credentialed CORS without explicit origins or with "null" (400) and accepts a listed origin', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {});
  const admin = adminClient(`https://127.0.0.1:${s.home.ports.servletHttps}`);
  const body = (name: string, context: string, cors: Record<string, unknown>): Record<string, unknown> => ({
    name, context, version: '1.0.0', endpoints: { production: be.url },
    resources: [{ verb: 'GET', uri_template: '/*', auth_type: 'None' }], cors: { enable: true, ...cors },
  });
  for (const [name, cors] of [
    ['NoOrigins', { allow_credentials: true }],
    ['NullOrigin', { allow_credentials: true, allow_origins: ['null'] }],
    ['Star', { allow_credentials: true, allow_origins: ['*'] }],
  ] as const) {
    const r = await admin.post(`${ADMIN}/apis`, body(name, `/${name.toLowerCase()}`, cors));
    t.equal(r.status, 400, `${name}: 400`);
    t.match(JSON.stringify(r.json), /cors\.allow_(credentials|origins)/, `${name}: the answer names the field`);
  }
  const ok = await admin.post(`${ADMIN}/apis`, body('Listed', '/listed', { allow_credentials: true, allow_origins: [CORPUS.allowed] }));
  t.equal(ok.status, 201, 'control: credentials with a listed origin are accepted');
});

t.test('a stored definition that predates the check never echoes "*" or "null" with credentials', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {});
  // Written straight into the store, as an older version could have: the runtime is the last line.
  const def: ApiDefinition = {
    id: 'Legacy:1.0.0', name: 'Legacy', context: '/legacy', version: '1.0.0', type: 'HTTP', lifecycleState: 'PUBLISHED',
    throttlingPolicy: 'Unlimited', endpoints: { production: be.url }, source: 'admin-api',
    resources: [{ verb: 'GET', uriTemplate: '/*', authType: 'None', throttlingPolicy: 'Unlimited', scopes: [] }],
    cors: { enabled: true, allowOrigins: ['null'], allowMethods: [], allowHeaders: [], allowCredentials: true },
  };
  await s.node.store!.apis.put(def);
  await s.node.bus.publish({ type: 'registry.changed', kind: 'apis', revision: Date.now() });
  await eventually(async () => (await request(s.url('/legacy/1.0.0/x'))).status === 200, 'the stored API to deploy');
  for (const { origin, why } of CORPUS.attacks) {
    for (const r of await probe(s.url('/legacy/1.0.0/x'), origin)) t.notOk(credentialedFor(r, origin), `${origin} (${why}) gets no credentials`);
  }
  const inherited = { ...def, id: 'Legacy2:1.0.0', name: 'Legacy2', context: '/legacy2', cors: { ...def.cors!, allowOrigins: [] } };
  await s.node.store!.apis.put(inherited);
  await s.node.bus.publish({ type: 'registry.changed', kind: 'apis', revision: Date.now() + 1 });
  await eventually(async () => (await request(s.url('/legacy2/1.0.0/x'))).status === 200, 'the second stored API to deploy');
  for (const r of await probe(s.url('/legacy2/1.0.0/x'), 'https://evil.example')) {
    t.notOk(credentialedFor(r, 'https://evil.example'), 'the global "*" is not inherited with credentials');
  }
});

t.test('[apim.cors] with credentials refuses "null" as it refuses "*" (check-config)', async (t) => {
  const { loadConfig } = await import('../../conf/loader.js');
  const { makeHome } = await import('../helpers/home.js');
  const home = await makeHome({ apim: { cors: { allow_origins: ['https://app.acme.test', 'null'], allow_credentials: true } } });
  t.teardown(() => home.cleanup());
  t.throws(() => loadConfig(home.dir), /apim\.cors\.allow_credentials.*"null"|"null".*apim\.cors/s, 'refused, naming the key');
});

