import t from 'tap';
import { ApiRouter } from '../../../engine/routing/api-router.js';
import type { ApiDefinition, ResourceDefinition } from '../../../engine/registry/types.js';

function resource(verb: string, uriTemplate: string): ResourceDefinition {
  return { verb, uriTemplate, authType: 'None', throttlingPolicy: 'Unlimited', scopes: [] };
}

function api(context: string, version: string, resources: ResourceDefinition[]): ApiDefinition {
  return {
    id: `${context}:${version}`, name: context.slice(1), context, version, type: 'HTTP', lifecycleState: 'PUBLISHED',
    throttlingPolicy: 'Unlimited', endpoints: { production: 'http://127.0.0.1:1' }, resources, source: 'test',
  } as unknown as ApiDefinition;
}

const pizza = api('/pizzashack', '1.0.0', [
  resource('GET', '/menu'),
  resource('GET', '/menu/{id}'),
  resource('GET', '/menu/specials'),
  resource('POST', '/orders/{id}/items'),
  resource('DELETE', '/orders/*'),
]);
const open = api('/open', '2.0', [resource('GET', '/*'), resource('PUT', '/*')]);
const deep = api('/a/b', 'v1', [resource('GET', '/x')]);
const router = new ApiRouter([pizza, open, deep]);

function find(path: string, verb = 'GET'): { template: string | null; params: string[]; resourcePath: string | null } {
  const m = router.findApi(path);
  if (m === null) return { template: null, params: [], resourcePath: null };
  const params: string[] = [];
  const r = ApiRouter.findResource(m.api, verb, m.resourcePath, params);
  return { template: r?.def.uriTemplate ?? null, params, resourcePath: m.resourcePath };
}

t.test('the longest /<context>/<version> prefix selects the API; no prefix, no API', async (t) => {
  t.equal(router.findApi('/pizzashack/1.0.0/menu')?.api.def.context, '/pizzashack');
  t.equal(router.findApi('/a/b/v1/x')?.api.def.context, '/a/b', 'a context of two segments');
  t.equal(router.findApi('/pizzashack/2.0.0/menu'), null, 'another version is another API');
  t.equal(router.findApi('/pizzashack'), null);
  t.equal(router.findApi('/nothing/here'), null);
  t.equal(find('/open/2.0').resourcePath, '/', 'the bare prefix is the resource path /');
});

t.test('literal segments before {param} before /*; parameters decoded', async (t) => {
  t.same(find('/pizzashack/1.0.0/menu'), { template: '/menu', params: [], resourcePath: '/menu' });
  t.same(find('/pizzashack/1.0.0/menu/specials').template, '/menu/specials', 'a literal wins over {id}');
  t.same(find('/pizzashack/1.0.0/menu/42'), { template: '/menu/{id}', params: ['42'], resourcePath: '/menu/42' });
  t.same(find('/pizzashack/1.0.0/menu/caf%C3%A9').params, ['café'], 'percent-decoded');
  t.same(find('/pizzashack/1.0.0/menu/%E0%A4%A').params, ['%E0%A4%A'], 'a bad escape is kept as sent');
  t.same(find('/pizzashack/1.0.0/orders/7/items', 'POST'), { template: '/orders/{id}/items', params: ['7'], resourcePath: '/orders/7/items' });
  t.equal(find('/pizzashack/1.0.0/orders/7/items/9', 'POST').template, null, 'no template covers a deeper path');
  t.equal(find('/pizzashack/1.0.0/orders/7/items/9', 'DELETE').template, '/orders/*', '/* covers everything below');
  t.equal(find('/pizzashack/1.0.0/orders', 'DELETE').template, '/orders/*', '/* covers its own node');
});

t.test('verbs: a template for another verb does not match; HEAD falls back to GET', async (t) => {
  t.equal(find('/pizzashack/1.0.0/menu', 'POST').template, null);
  t.equal(find('/pizzashack/1.0.0/menu/3', 'HEAD').template, '/menu/{id}');
  t.equal(find('/open/2.0/any/depth/at/all', 'PUT').template, '/*');
  t.equal(find('/open/2.0/any', 'DELETE').template, null);
  t.ok(ApiRouter.hasPath(router.findApi('/pizzashack/1.0.0/orders/1/items')!.api, '/orders/1/items'), 'preflight sees the POST resource');
  t.notOk(ApiRouter.hasPath(router.findApi('/pizzashack/1.0.0/x')!.api, '/x'));
});

t.test('empty segments (// and a trailing /) are ignored as the templates ignore them', async (t) => {
  t.equal(find('/pizzashack/1.0.0/menu/').template, '/menu');
  t.same(find('/pizzashack/1.0.0//menu//5').params, ['5']);
  t.equal(find('/open/2.0/').template, '/*');
});

t.test('only leading segments as long as a deployed prefix are looked up, and they must still match', async (t) => {
  const outer = api('/a', 'v1', [resource('GET', '/*')]);
  const inner = api('/a/v1/b', 'v2', [resource('GET', '/*')]);
  const r = new ApiRouter([outer, inner]);
  t.equal(r.findApi('/a/v1/b/v2/x')?.api.def.context, '/a/v1/b', 'the longer of two nested prefixes');
  t.equal(r.findApi('/a/v1/b/v2')?.resourcePath, '/', 'the whole path is the longer prefix');
  t.equal(r.findApi('/a/v1/c/v2/x')?.api.def.context, '/a', 'a path of the longer length that is not it falls back to the shorter');
  t.equal(r.findApi('/a/v1/c/v2/x')?.resourcePath, '/c/v2/x');
  t.equal(r.findApi('/b/v1/x'), null, 'a segment as long as a prefix, not it');
  t.equal(r.findApi('/a/v2'), null);
  t.equal(r.findApi('/a/v1x/y'), null, 'a longer segment that starts with the prefix');
});

t.test('a prefix longer than the length table is still found', async (t) => {
  const long = api(`/${'l'.repeat(300)}`, 'v1', [resource('GET', '/*')]);
  const r = new ApiRouter([long, open]);
  t.equal(r.findApi(`/${'l'.repeat(300)}/v1/x`)?.resourcePath, '/x');
  t.equal(r.findApi(`/${'m'.repeat(300)}/v1/x`), null);
  t.equal(r.findApi('/open/2.0/y')?.resourcePath, '/y');
});

t.test('characters outside ASCII in a path and a context are compared as they are', async (t) => {
  const cafe = api('/café', 'v1', [resource('GET', '/*')]);
  const r = new ApiRouter([cafe, open]);
  t.equal(r.findApi('/café/v1/menu')?.resourcePath, '/menu');
  t.equal(r.findApi('/cafe/v1/menu'), null);
  t.equal(r.findApi('/caf\u00e9\u0301/v1/menu'), null, 'another length is another prefix');
});

t.test('a path or a resource looked up again, alone or between others, finds what a first lookup finds', async (t) => {
  // Each router remembers its last lookup: the same path and the same verb again take it, anything else looks
  // up anew. A fresh router for each expected answer is the reference.
  const paths = ['/pizzashack/1.0.0/menu', '/pizzashack/1.0.0/menu', '/open/2.0/menu', '/pizzashack/1.0.0/menu/7', '/nothing/1', '/nothing/1', '/a/b/v1/x'];
  const verbs = ['GET', 'GET', 'PUT', 'GET', 'POST', 'DELETE', 'HEAD'];
  const shared = new ApiRouter([pizza, open, deep]);
  for (const [i, path] of paths.entries()) {
    for (const verb of [verbs[i]!, 'GET', 'DELETE']) {
      const fresh = new ApiRouter([pizza, open, deep]);
      const want = fresh.findApi(path);
      const got = shared.findApi(path);
      t.equal(got?.api.prefix ?? null, want?.api.prefix ?? null, `${path}: the API`);
      t.equal(got?.resourcePath ?? null, want?.resourcePath ?? null, `${path}: the resource path`);
      if (got === null || want === null) continue;
      const wantResource = ApiRouter.findResource(want.api, verb, want.resourcePath, null)?.def.uriTemplate ?? null;
      t.equal(ApiRouter.findResource(got.api, verb, got.resourcePath, null)?.def.uriTemplate ?? null, wantResource, `${verb} ${path}: the resource`);
    }
  }
});
