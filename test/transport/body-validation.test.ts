import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request, faultOf, type SeenRequest } from '../helpers/backends.js';

t.test('force_json_validation / force_xml_validation refuse malformed bodies with 400 before the backend', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, { passthru_http: { force_json_validation: true, force_xml_validation: true } },
    { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  let r = await request(s.url('/echo/1.0.0/a'), { method: 'POST', body: '{"a": [1, 2', headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 400);
  t.match(faultOf(r)?.description, /Malformed JSON payload/);
  r = await request(s.url('/echo/1.0.0/a'), { method: 'POST', body: '<a><b></a>', headers: { 'content-type': 'application/xml; charset=utf-8' } });
  t.equal(r.status, 400);
  t.match(faultOf(r)?.description, /Malformed XML payload/);
  t.equal(be.seen.length, 0, 'neither reached the backend');
  const good = '{"a": [1, 2, 3]}';
  r = await request(s.url('/echo/1.0.0/a'), { method: 'POST', body: good, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
  t.equal(r.status, 200, 'a valid body passes');
  t.equal((r.json as SeenRequest).bodyLength, good.length);
  t.equal((r.json as SeenRequest).headers['content-length'], String(good.length), 'a validated body is sent with its length');
  r = await request(s.url('/echo/1.0.0/a'), { method: 'POST', body: 'not json at all', headers: { 'content-type': 'text/plain' } });
  t.equal(r.status, 200, 'other content types are not inspected');
});

t.test('without the keys, bodies are not inspected', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, {}, { [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }) });
  const r = await request(s.url('/echo/1.0.0/a'), { method: 'POST', body: '{"broken', headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200);
});
