import t from 'tap';
import crypto from 'node:crypto';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request, faultOf, type SeenRequest } from '../helpers/backends.js';

const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';
const seq = (name: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<sequence xmlns="http://ws.apache.org/ns/synapse" name="${name}">
${body}
</sequence>`;

t.test('API in and out sequences: header-only ones keep the body streaming, content-aware ones rewrite it', async (t) => {
  const be = await echoBackend(t, (req, res) => {
    if (req.url?.startsWith('/menu')) { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ items: [{ name: 'margherita', price: 9 }] })); return true; }
    return false;
  });
  const api = (name: string, context: string, extra: string) => apiToml({ name, context, production: be.url, extra });
  const s = await startSluice(t, {}, {
    [`${SEQ_DIR}/acme_tag.xml`]: seq('acme_tag', `  <property name="who" expression="$trp:X-Caller" scope="default"/>
  <header name="X-Tagged" expression="get-property('who')" scope="transport"/>
  <header name="X-Api" expression="get-property('api.ut.api')" scope="transport"/>`),
    [`${SEQ_DIR}/acme_rewrite.xml`]: seq('acme_rewrite', `  <payloadFactory media-type="json">
    <format>{"order":{"pizza":"$1","qty":$2}}</format>
    <args><arg evaluator="json" expression="$.name"/><arg evaluator="json" expression="$.count"/></args>
  </payloadFactory>`),
    [`${SEQ_DIR}/acme_gate.xml`]: seq('acme_gate', `  <filter source="$trp:X-Mode" regex="stop">
    <then><payloadFactory media-type="json"><format>{"stopped":true}</format><args/></payloadFactory>
      <property name="HTTP_SC" value="418" scope="axis2"/><respond/></then>
  </filter>
  <filter source="$trp:X-Mode" regex="drop"><then><drop/></then></filter>`),
    [`${SEQ_DIR}/acme_out_header.xml`]: seq('acme_out_header', '  <header name="X-Out" value="seen" scope="transport"/>'),
    [`${SEQ_DIR}/acme_out_rewrite.xml`]: seq('acme_out_rewrite', `  <payloadFactory media-type="json">
    <format>{"first":"$1"}</format><args><arg evaluator="json" expression="$.items[0].name"/></args>
  </payloadFactory>`),
    [`${API_DIR}/tag.toml`]: api('Tag', '/tag', 'in_sequence = "acme_tag"\nout_sequence = "acme_out_header"'),
    [`${API_DIR}/rewrite.toml`]: api('Rewrite', '/rewrite', 'in_sequence = "acme_rewrite"'),
    [`${API_DIR}/gate.toml`]: api('Gate', '/gate', 'in_sequence = "acme_gate"'),
    [`${API_DIR}/menu.toml`]: api('Menu', '/menu', 'out_sequence = "acme_out_rewrite"'),
    [`${API_DIR}/missing.toml`]: api('Missing', '/missing', 'in_sequence = "acme_nowhere"'),
  });

  const big = crypto.randomBytes(8 * 1024 * 1024);
  let r = await request(s.url('/tag/1.0.0/x'), { method: 'POST', body: big, headers: { 'x-caller': 'acme-tester' } });
  t.equal(r.status, 200);
  const seen = r.json as SeenRequest;
  t.equal(seen.headers['x-tagged'], 'acme-tester', 'property from a transport header, set as a header');
  t.equal(seen.headers['x-api'], 'Tag', 'call facts readable');
  t.equal(seen.bodySha, crypto.createHash('sha256').update(big).digest('hex'), 'an 8 MiB body passes a header-only sequence whole');
  t.equal(r.headers['x-out'], 'seen', 'header-only out sequence');

  r = await request(s.url('/rewrite/1.0.0/order'), { method: 'POST', body: JSON.stringify({ name: 'diavola', count: 2 }), headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 200);
  const want = JSON.stringify({ order: { pizza: 'diavola', qty: 2 } });
  t.equal((r.json as SeenRequest).bodySha, crypto.createHash('sha256').update(want).digest('hex'), 'the backend got the rewritten body');
  t.equal((r.json as SeenRequest).headers['content-length'], String(want.length));

  const before = be.seen.length;
  r = await request(s.url('/gate/1.0.0/x'), { headers: { 'x-mode': 'stop' } });
  t.equal(r.status, 418, 'respond from the in sequence');
  t.same(r.json, { stopped: true });
  r = await request(s.url('/gate/1.0.0/x'), { headers: { 'x-mode': 'drop' } });
  t.equal(r.status, 202, 'drop ends the call');
  t.equal(be.seen.length, before, 'neither reached the backend');
  r = await request(s.url('/gate/1.0.0/x'), { headers: { 'x-mode': 'go' } });
  t.equal(r.status, 200, 'otherwise the call goes on');

  r = await request(s.url('/menu/1.0.0/menu'));
  t.same(r.json, { first: 'margherita' }, 'content-aware out sequence rewrote the response');

  r = await request(s.url('/missing/1.0.0/x'));
  t.equal(r.status, 500);
  t.equal(faultOf(r)?.code, 101510);
});
