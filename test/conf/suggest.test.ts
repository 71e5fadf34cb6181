// conf/suggest.ts: "did you mean" for unknown keys, values and placeholders: a near miss gets the known name;
// an unrelated name gets nothing.
import t from 'tap';
import { catalogIndex } from '../../conf/catalog/index.js';
import { closest } from '../../conf/suggest.js';

const KEYS = [...catalogIndex.exact.keys()];

t.test('keys', async (t) => {
  const cases: [string, string | undefined][] = [
    ['passthru_http.worker_pool_size_cor', 'passthru_http.worker_pool_size_core'],
    ['passthru_http.worker_pool_sise_core', 'passthru_http.worker_pool_size_core'],
    ['apim.cors.allow_origin', 'apim.cors.allow_origins'],
    ['transport.passthru_http.listener.parameters.prt', 'transport.passthru_http.listener.parameters.port'],
    ['apim.devportl.url', 'apim.devportal.url'],
    ['servr.offset', 'server.offset'],
    ['apim.cache.gatway_token.enable', 'apim.cache.gateway_token.enable'],
    ['passthru_https.worker_pool_size_core', 'passthru_http.worker_pool_size_core'],
    ['server.foo', undefined],
    ['server.port', undefined],
    ['apim.cors.max_age', undefined],
    ['passthru_http.bar_baz', undefined],
    ['completely.unrelated.thing', undefined],
  ];
  for (const [unknown, want] of cases) t.equal(closest(unknown, KEYS), want, `${unknown} -> ${want ?? 'nothing'}`);
});

t.test('values of a closed set', async (t) => {
  const roles = ['default', 'api-devportal', 'api-key-manager', 'api-publisher', 'gateway-worker', 'traffic-manager'];
  t.equal(closest('gatway-worker', roles), 'gateway-worker');
  t.equal(closest('Gateway-Worker', roles), 'gateway-worker');
  t.equal(closest('gateway', roles), 'gateway-worker', 'a unique start');
  t.equal(closest('api', roles), undefined, 'a start shared by several');
  t.equal(closest('banana', roles), undefined);
  t.equal(closest('prod', ['production', 'sandbox', 'hybrid']), 'production');
  t.equal(closest('Hybrid', ['production', 'sandbox', 'hybrid']), 'hybrid');
  t.equal(closest('postgres', ['mysql', 'h2', 'mssql', 'postgre', 'oracle', 'db2']), 'postgre');
  t.equal(closest('api_only', ['HYBRID', 'API_ONLY', 'MCP_ONLY']), 'API_ONLY');
});
