import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { requireBuild, ROOT } from '../fixtures/sluice-process.js';
import { makeHome, API_DIR, eventually } from '../helpers/home.js';
import { startSluice } from '../helpers/sluice.js';
import { echoBackend, request, faultOf } from '../helpers/backends.js';
import { cli } from './helpers.js';

requireBuild();

const FIX = path.join(ROOT, 'test/fixtures/openapi');
type Resource = { verb: string; uri_template: string; auth_type: string; scopes: string[] };
type ApiFile = { name: string; context: string; version: string; endpoints: { production: string }; resources: Resource[] };

function readApi(home: string, file: string): ApiFile {
  return parse(fs.readFileSync(path.join(home, API_DIR, file), 'utf8')) as unknown as ApiFile;
}
const routes = (a: ApiFile): string[] => a.resources.map((r) => `${r.verb} ${r.uri_template}`).sort();

/** Each public spec: imported into a fresh home, then the whole home passes check-config. */
const SPECS: [string, string, { file: string; name: string; production: string; routes: string[] }][] = [
  ['OpenAPI 3.0 petstore (YAML)', 'petstore-3.0.yaml', { file: 'SwaggerPetstore-1.0.0.toml', name: 'SwaggerPetstore', production: 'http://petstore.swagger.io/v1', routes: ['GET /pets', 'GET /pets/{petId}', 'POST /pets'] }],
  ['Swagger 2.0 petstore (JSON, host + basePath)', 'petstore-swagger-2.0.json', { file: 'SwaggerPetstore-1.0.0.toml', name: 'SwaggerPetstore', production: 'http://petstore.swagger.io/v1', routes: ['GET /pets', 'GET /pets/{petId}', 'POST /pets'] }],
  ['Swagger 2.0 split over files (external $refs)', 'petstore-separate/spec/swagger.json', { file: 'SwaggerPetstore-1.0.0.toml', name: 'SwaggerPetstore', production: 'http://petstore.swagger.wordnik.com/api', routes: ['DELETE /pets/{id}', 'GET /pets', 'GET /pets/{id}', 'POST /pets'] }],
  ['OpenAPI 3.0.3 with OAuth scopes and server variables', 'oauth-server-variables.yaml', { file: 'GiganticPets-2.1.toml', name: 'GiganticPets', production: 'https://demo.gigantic-server.com:8443/v2', routes: ['DELETE /pets/{petId}', 'GET /health', 'GET /pets', 'GET /pets/{petId}', 'GET /reports/{year}', 'POST /pets'] }],
];

for (const [what, spec, want] of SPECS) {
  t.test(`import openapi: ${what}`, async (t) => {
    const home = await makeHome();
    t.teardown(() => home.cleanup());
    const r = await cli(['import', 'openapi', path.join(FIX, spec), '--home', home.dir]);
    t.equal(r.status, 0, r.stderr);
    t.match(r.stdout, new RegExp(`imported ${want.routes.length} resource\\(s\\) into .*${want.file.replace('.', '\\.')}`));
    const api = readApi(home.dir, want.file);
    t.equal(api.name, want.name);
    t.equal(api.endpoints.production, want.production);
    t.same(routes(api), want.routes);
    const cc = await cli(['check-config', '--home', home.dir]);
    t.equal(cc.status, 0, `check-config accepts the imported file: ${cc.stderr}`);
  });
}

t.test('security requirements: scopes from OAuth2 schemes, security: [] is open, no requirement is secured by default', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  const r = await cli(['import', 'openapi', path.join(FIX, 'oauth-server-variables.yaml'), '--home', home.dir]);
  t.equal(r.status, 0, r.stderr);
  const api = readApi(home.dir, 'GiganticPets-2.1.toml');
  const by = (v: string, p: string): Resource => api.resources.find((x) => x.verb === v && x.uri_template === p)!;
  t.same(by('GET', '/pets').scopes, ['read:pets'], 'the root requirement');
  t.same(by('POST', '/pets').scopes.sort(), ['read:pets', 'write:pets'], 'the operation\'s own requirement');
  t.same(by('DELETE', '/pets/{petId}').scopes, ['write:pets'], 'through a $ref\'d path item');
  t.equal(by('GET', '/health').auth_type, 'None', 'security: [] is open');
  t.equal(by('GET', '/reports/{year}').auth_type, 'Application & Application User');
  t.match(r.stderr, /POST \/pets: the document requires the scopes write:pets and read:pets together/);
  t.match(r.stderr, /segment "\{year\}\.csv" imported as \{year\}/);

  const open = await makeHome();
  t.teardown(() => open.cleanup());
  const p = await cli(['import', 'openapi', path.join(FIX, 'petstore-3.0.yaml'), '--home', open.dir]);
  t.match(p.stderr, /3 operation\(s\) have no security requirement .* imported as "Application & Application User"/);
  t.ok(readApi(open.dir, 'SwaggerPetstore-1.0.0.toml').resources.every((x) => x.auth_type === 'Application & Application User'));
  const q = await cli(['import', 'openapi', path.join(FIX, 'petstore-3.0.yaml'), '--home', open.dir, '--auth-type', 'None', '--force']);
  t.equal(q.status, 0, q.stderr);
  t.ok(readApi(open.dir, 'SwaggerPetstore-1.0.0.toml').resources.every((x) => x.auth_type === 'None'));
});

t.test('--context, --version, --backend, --name and --dry-run', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  const r = await cli(['import', 'openapi', path.join(FIX, 'petstore-3.0.yaml'), '--home', home.dir, '--context', 'pets', '--version', '2.0.0', '--backend', 'http://10.1.2.3:8080/v2/', '--name', 'Pets', '--dry-run']);
  t.equal(r.status, 0, r.stderr);
  const api = parse(r.stdout) as unknown as ApiFile;
  t.equal(api.name, 'Pets');
  t.equal(api.context, '/pets');
  t.equal(api.version, '2.0.0');
  t.equal(api.endpoints.production, 'http://10.1.2.3:8080/v2');
  t.same(fs.readdirSync(path.join(home.dir, API_DIR)).filter((f) => f.startsWith('Pets')), [], '--dry-run writes nothing');
});

t.test('refusals: an existing file, a clash with another API, no usable server', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  const spec = path.join(FIX, 'petstore-3.0.yaml');
  t.equal((await cli(['import', 'openapi', spec, '--home', home.dir])).status, 0);
  const again = await cli(['import', 'openapi', spec, '--home', home.dir]);
  t.equal(again.status, 1);
  t.match(again.stderr, /SwaggerPetstore-1\.0\.0\.toml exists; --force overwrites it/);
  // The same API under another file name: what hot deployment would refuse, refused before it is written.
  const clash = await cli(['import', 'openapi', spec, '--home', home.dir, '--name', 'Other', '--context', '/swagger-petstore', '--version', '1.0.0']);
  t.equal(clash.status, 2);
  t.match(clash.stderr, /serves \/swagger-petstore\/1\.0\.0, as SwaggerPetstore:1\.0\.0/);
  t.same(fs.readdirSync(path.join(home.dir, API_DIR)).filter((f) => f.startsWith('.') || f.startsWith('Other')), [], 'nothing left behind');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-oas-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const rel = path.join(dir, 'relative.yaml');
  fs.writeFileSync(rel, 'openapi: 3.0.3\ninfo: { title: Rel, version: "1" }\nservers: [{ url: /v1 }]\npaths: { /x: { get: { responses: { "200": { description: ok } } } } }\n');
  const r1 = await cli(['import', 'openapi', rel, '--home', home.dir]);
  t.equal(r1.status, 2);
  t.match(r1.stderr, /"\/v1" is not absolute .* --backend URL/);
  t.equal((await cli(['import', 'openapi', rel, '--home', home.dir, '--backend', 'http://127.0.0.1:9/v1'])).status, 0);
  const vars = path.join(dir, 'vars.yaml');
  fs.writeFileSync(vars, 'openapi: 3.0.3\ninfo: { title: Vars, version: "1" }\nservers: [{ url: "https://{region}.example.com" }]\npaths: { /x: { get: { responses: { "200": { description: ok } } } } }\n');
  const r2 = await cli(['import', 'openapi', vars, '--home', home.dir]);
  t.equal(r2.status, 2);
  t.match(r2.stderr, /server variable \{region\} has no default/);
  const yamlErr = path.join(dir, 'bad.yaml');
  fs.writeFileSync(yamlErr, 'openapi: 3.0.3\ninfo:\n  title: "unterminated\n');
  const r3 = await cli(['import', 'openapi', yamlErr, '--home', home.dir]);
  t.equal(r3.status, 2);
  t.match(r3.stderr, /bad\.yaml:\d+:\d+: not valid YAML/);
  const missing = await cli(['import', 'openapi', path.join(dir, 'nope.yaml'), '--home', home.dir]);
  t.equal(missing.status, 2);
  t.match(missing.stderr, /nope\.yaml: cannot be read: no such file/);
});

/** Attack corpus (test/fixtures/openapi/attacks, README there): each refused with one line, exit 2, nothing written. */
const ATTACKS: [string, string, RegExp][] = [
  ['a $ref to a file that is not a document (/etc/passwd)', 'escape-ref.yaml', /\/etc\/passwd: a referenced file must be a \.json, \.yaml or \.yml document/],
  ['a remote $ref (never fetched)', 'remote-ref.yaml', /remote references are not fetched/],
  ['a YAML alias bomb', 'alias-bomb.yaml', /alias count|resource exhaustion/i],
  ['a document that is not OpenAPI', 'not-openapi.json', /not an OpenAPI 3\.x or Swagger 2\.0 document/],
  ['a $ref to a name every object inherits (constructor, __proto__)', 'inherited-ref.yaml', /a \$ref at \/paths\/~1pets\/get\/responses\/200\/content\/application~1json\/schema names nothing in the document/],
];
for (const [what, file, want] of ATTACKS) {
  t.test(`import openapi refuses ${what}`, async (t) => {
    const home = await makeHome();
    t.teardown(() => home.cleanup());
    const before = fs.readdirSync(path.join(home.dir, API_DIR)).sort();
    const r = await cli(['import', 'openapi', path.join(FIX, 'attacks', file), '--home', home.dir]);
    t.equal(r.status, 2, r.stderr);
    t.match(r.stderr, want);
    t.notMatch(r.stderr, /root:x:0:0/, 'no file content is echoed');
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
    t.same(fs.readdirSync(path.join(home.dir, API_DIR)).sort(), before, 'nothing written');
  });
}

t.test('components named constructor and __proto__ are components like any other (the control of inherited-ref.yaml)', async (t) => {
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  const r = await cli(['import', 'openapi', path.join(FIX, 'inherited-names-defined.yaml'), '--home', home.dir]);
  t.equal(r.status, 0, r.stderr);
  const toml = fs.readFileSync(path.join(home.dir, API_DIR, 'InheritedDefined-1.0.0.toml'), 'utf8');
  t.match(toml, /uri_template = "\/pets"/, 'the operation whose schema is named constructor is imported');
  t.match(toml, /uri_template = "\/owners"/, 'the operation whose parameter is named __proto__ is imported');
});

t.test('a $ref through a symlink to a non-document is refused too; a .json beside the folder is read (a control)', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-oas-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'spec'));
  fs.mkdirSync(path.join(dir, 'common'));
  fs.writeFileSync(path.join(dir, 'common/limit.json'), JSON.stringify({ name: 'limit', in: 'query', schema: { type: 'integer' } }));
  fs.writeFileSync(path.join(dir, 'spec/api.yaml'), 'openapi: 3.0.3\ninfo: { title: Ctl, version: "1" }\nservers: [{ url: "http://127.0.0.1:9" }]\npaths:\n  /x:\n    get:\n      parameters: [{ $ref: "../common/limit.json" }]\n      responses: { "200": { description: ok } }\n');
  const home = await makeHome();
  t.teardown(() => home.cleanup());
  const ok = await cli(['import', 'openapi', path.join(dir, 'spec/api.yaml'), '--home', home.dir, '--dry-run']);
  t.equal(ok.status, 0, ok.stderr);
  fs.symlinkSync('/dev/zero', path.join(dir, 'spec/zero.json'));
  fs.writeFileSync(path.join(dir, 'spec/zero.yaml'), 'openapi: 3.0.3\ninfo: { title: Zero, version: "1" }\nservers: [{ url: "http://127.0.0.1:9" }]\npaths:\n  /x:\n    get:\n      parameters: [{ $ref: "zero.json" }]\n      responses: { "200": { description: ok } }\n');
  const z = await cli(['import', 'openapi', path.join(dir, 'spec/zero.yaml'), '--home', home.dir]);
  t.equal(z.status, 2);
  t.match(z.stderr, /zero\.json: a referenced file must be a regular file/);
});

t.test('a running node deploys the imported API at once and routes its calls to the backend', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t);
  const r = await cli(['import', 'openapi', path.join(FIX, 'petstore-3.0.yaml'), '--home', s.home.dir, '--backend', `${backend.url}/v1`, '--auth-type', 'None']);
  t.equal(r.status, 0, r.stderr);
  const res = await eventually(async () => { const x = await request(s.url('/swagger-petstore/1.0.0/pets/7')); return x.status === 200 ? x : null; }, 'the imported API to answer');
  t.equal(res.status, 200);
  t.equal(backend.seen.at(-1)!.url, '/v1/pets/7');
  // A path the document does not declare is not routed.
  const no = await request(s.url('/swagger-petstore/1.0.0/owners'));
  t.ok(no.status >= 400, 'refused');
  t.equal(faultOf(no)?.code, 900906);
  t.equal(backend.seen.filter((x) => x.url.includes('owners')).length, 0, 'the backend never saw it');
});
