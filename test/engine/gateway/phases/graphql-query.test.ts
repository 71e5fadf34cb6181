// graphql-query in-process: a GraphQL API's query is bounded before it is parsed, then parsed (900422).
import t from 'tap';
import { GraphqlQueryPhase } from '../../../../engine/gateway/phases/graphql-query.js';
import { ResolveApiPhase } from '../../../../engine/gateway/phases/resolve-api.js';
import { ApiHandlerError } from '../../../../errors/index.js';
import { apiDef, deployedApis, resource } from '../../../helpers/deployed.js';
import { inject, testRuntime } from '../../../helpers/inject.js';

const deployed = deployedApis([apiDef({ name: 'Gql', context: '/gql', type: 'GRAPHQL', resources: [resource('POST', '/*'), resource('GET', '/*')] })]);
const rt = testRuntime([new ResolveApiPhase(deployed), new GraphqlQueryPhase({ maxTokens: 50, maxDepth: 3 })]);
const post = (query: string) => inject(rt, { method: 'POST', path: '/gql/1.0.0/', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

t.test('a query within the limits goes on', async (t) => {
  t.ok(post('{ menu { name price } }').reachedTerminal);
  t.ok(inject(rt, { path: '/gql/1.0.0/', query: 'query=%7B%20menu%20%7B%20name%20%7D%20%7D' }).reachedTerminal, 'in the query string too');
});

t.test('a syntax error, too many tokens, too deep: 900422 saying which', async (t) => {
  const bad = post('{ menu { name ');
  t.equal(bad.client.written.status, 422);
  t.match(bad.fault, { code: ApiHandlerError.GRAPHQL_INVALID_QUERY.code, description: /Syntax of the provided GraphQL query is invalid/ });
  t.match(post(`{ ${'a '.repeat(60)} }`).fault?.description, /more than 50 tokens/);
  t.match(post('{ a { b { c { d } } } }').fault?.description, /deeper than 3 levels/);
});

t.test('no query at all: 900422', async (t) => {
  const r = inject(rt, { method: 'POST', path: '/gql/1.0.0/', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(r.fault?.code, 900422);
  t.match(r.fault?.description, /No GraphQL query/);
});
