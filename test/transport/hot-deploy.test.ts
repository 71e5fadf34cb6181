import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf, type SeenRequest } from '../helpers/backends.js';

t.test('API files are deployed, changed and undeployed without a restart; a bad file keeps the previous version', async (t) => {
  const a = await echoBackend(t);
  const b = await echoBackend(t);
  const s = await startSluice(t, {}, {});
  t.equal((await request(s.url('/hot/1.0.0/x'))).status, 404, 'nothing deployed yet');

  s.home.write(`${API_DIR}/hot.toml`, apiToml({ name: 'Hot', context: '/hot', production: `${a.url}/a` }));
  await eventually(async () => (await request(s.url('/hot/1.0.0/x'))).status === 200, 'the new API to answer');
  t.equal(((await request(s.url('/hot/1.0.0/x'))).json as SeenRequest).url, '/a/x');

  s.home.write(`${API_DIR}/hot.toml`, apiToml({ name: 'Hot', context: '/hot', production: `${b.url}/b` }));
  await eventually(async () => ((await request(s.url('/hot/1.0.0/x'))).json as SeenRequest | undefined)?.url === '/b/x', 'the changed endpoint');

  s.home.write(`${API_DIR}/hot.toml`, 'name = "Hot"\ncontext = "/hot"\nversion = = 1\n');
  await eventually(() => s.home.logs().some((l) => /API not deployed/.test(String(l['msg'])) && /hot\.toml/.test(String(l['file']))), 'the refusal to be logged');
  const line = s.home.logs().find((l) => /API not deployed/.test(String(l['msg'])))!;
  t.match(String(line['msg']), /hot\.toml:3:\d+/, 'the log names file, line and column');
  t.match(String(line['msg']), /previous version stays deployed/);
  t.equal(((await request(s.url('/hot/1.0.0/x'))).json as SeenRequest).url, '/b/x', 'the previous version keeps serving');

  s.home.write(`${API_DIR}/hot.toml`, apiToml({ name: 'Hot', context: '/hot', production: `${b.url}/b` }).replace('verb = "GET"', 'verb = "FLY"'));
  await eventually(() => s.home.logs().some((l) => /verb: expected one of/.test(String(l['msg']))), 'a bad field to be refused by name');
  t.equal((await request(s.url('/hot/1.0.0/x'))).status, 200, 'still serving');

  s.home.remove(`${API_DIR}/hot.toml`);
  await eventually(async () => (await request(s.url('/hot/1.0.0/x'))).status === 404, 'the API to be undeployed');
});

t.test('two files defining the same API: the second is refused', async (t) => {
  const a = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${API_DIR}/one.toml`]: apiToml({ name: 'Twin', context: '/twin', production: `${a.url}/one` }),
    [`${API_DIR}/two.toml`]: apiToml({ name: 'Twin', context: '/twin2', production: `${a.url}/two` }),
  });
  t.equal(((await request(s.url('/twin/1.0.0/x'))).json as SeenRequest).url, '/one/x');
  t.equal((await request(s.url('/twin2/1.0.0/x'))).status, 404);
  t.ok(await eventually(() => s.home.logs().some((l) => /already defined/.test(String(l['msg']))), 'the log line', 5000));
});

t.test('fault sequences are hot-deployed to the io threads', async (t) => {
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, {});
  const seq = `<?xml version="1.0" encoding="UTF-8"?>
<sequence xmlns="http://ws.apache.org/ns/synapse" name="main">
  <payloadFactory media-type="json"><format>{"fault":{"code":$1,"type":"Acme","message":"nothing here","description":"custom main"}}</format>
    <args><arg evaluator="xml" expression="$ctx:ERROR_CODE"/></args></payloadFactory>
  <property name="HTTP_SC" value="418" scope="axis2"/>
  <property name="messageType" value="application/json" scope="axis2"/>
  <send/>
</sequence>`;
  s.home.write('repository/deployment/server/synapse-configs/default/sequences/main.xml', seq);
  // Both io threads must have it: several fresh connections land on both.
  await eventually(async () => {
    const rs = await Promise.all(Array.from({ length: 8 }, () => request(s.url('/nowhere'))));
    return rs.every((r) => r.status === 418 && faultOf(r)?.description === 'custom main');
  }, 'the custom main sequence on every thread');
  t.pass('custom main sequence in effect');
});
