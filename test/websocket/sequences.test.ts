import t from 'tap';
import { startWsGateway, wsBackend, nextMessages } from '../helpers/websockets.js';
import { eventually } from '../helpers/home.js';

const SEQ_DIR = 'repository/deployment/server/synapse-configs/default/sequences';
const NS = 'http://ws.apache.org/ns/synapse';

/** Inbound: drop "secret" messages, answer "ping" at the gateway, rewrite "upper", fail on "boom". */
const DISPATCH = `<sequence xmlns="${NS}" name="dispatchSeq">
  <filter source="json-eval($.type)" regex="secret">
    <then><drop/></then>
  </filter>
  <filter source="json-eval($.type)" regex="ping">
    <then>
      <payloadFactory media-type="json"><format>{"type":"pong","from":"gateway"}</format><args/></payloadFactory>
      <respond/>
    </then>
  </filter>
  <filter source="json-eval($.type)" regex="upper">
    <then>
      <payloadFactory media-type="json">
        <format>{"type":"rewritten","app":"$1","api":"$2","was":$3}</format>
        <args>
          <arg expression="get-property('api.ut.application.name')"/>
          <arg expression="get-property('api.ut.api')"/>
          <arg evaluator="json" expression="$.n"/>
        </args>
      </payloadFactory>
    </then>
  </filter>
  <filter source="json-eval($.type)" regex="boom">
    <then>
      <payloadFactory media-type="json"><format>{"broken":$1}</format><args><arg value="not json at all"/></args></payloadFactory>
    </then>
  </filter>
</sequence>`;

/** Outbound: messages of kind "internal" never reach clients. */
const OUT_DISPATCH = `<sequence xmlns="${NS}" name="outDispatchSeq">
  <filter source="json-eval($.kind)" regex="internal">
    <then><drop/></then>
  </filter>
</sequence>`;

/** The [transport.ws] outflow dispatch sequence: runs after outDispatchSeq. */
const OUTFLOW = `<sequence xmlns="${NS}" name="acmeOutflow">
  <filter source="json-eval($.kind)" regex="tag">
    <then>
      <payloadFactory media-type="json"><format>{"tagged":true,"kind":"$1"}</format><args><arg evaluator="json" expression="$.kind"/></args></payloadFactory>
    </then>
  </filter>
</sequence>`;

/** The [transport.ws] outflow fault sequence: what a client gets when a dispatch sequence fails. */
const FAULT = `<sequence xmlns="${NS}" name="acmeWsFault">
  <payloadFactory media-type="json">
    <format>{"error":$1,"message":"$2"}</format>
    <args><arg expression="$ctx:ERROR_CODE"/><arg expression="$ctx:ERROR_MESSAGE"/></args>
  </payloadFactory>
  <send/>
</sequence>`;

t.test('dispatchSeq on client messages, outDispatchSeq and the outflow sequence on backend messages', async (t) => {
  const be = await wsBackend(t, (ws) => {
    ws.on('message', (m: Buffer, isBinary: boolean) => {
      const text = m.toString();
      if (text === 'send-internal') { ws.send('{"kind":"internal"}'); ws.send('{"kind":"public"}'); return; }
      if (text === 'send-tag') { ws.send('{"kind":"tag"}'); return; }
      ws.send(m, { binary: isBinary });
    });
  });
  const { open } = await startWsGateway(t, be.url, {
    conf: { transport: { ws: { 'sender.enable': true, 'sender.parameters.ws.outflow.dispatch.sequence': 'acmeOutflow', 'sender.parameters.ws.outflow.dispatch.fault.sequence': 'acmeWsFault' } } },
    files: {
      [`${SEQ_DIR}/dispatchSeq.xml`]: DISPATCH,
      [`${SEQ_DIR}/outDispatchSeq.xml`]: OUT_DISPATCH,
      [`${SEQ_DIR}/acmeOutflow.xml`]: OUTFLOW,
      [`${SEQ_DIR}/acmeWsFault.xml`]: FAULT,
    },
  });
  const c = (await open()).ws!;
  const one = async (send: string | Buffer): Promise<[string, boolean]> => {
    const p = nextMessages(c, 1);
    c.send(send);
    const [[d, bin]] = (await p) as [[Buffer, boolean]];
    return [d.toString(), bin];
  };

  t.same(await one('{"type":"plain","n":1}'), ['{"type":"plain","n":1}', false], 'a message no filter matches passes unchanged');
  const before = be.received.length;
  c.send('{"type":"secret"}');
  t.same(await one('{"type":"after-secret"}'), ['{"type":"after-secret"}', false], 'the next message passes');
  t.equal(be.received.length, before + 1, 'the "secret" message was dropped by dispatchSeq');
  t.notOk(be.received.some(([d]) => d.toString() === '{"type":"secret"}'), 'it never reached the backend');

  t.same(JSON.parse((await one('{"type":"ping"}'))[0]), { type: 'pong', from: 'gateway' }, 'respond: answered by the gateway');
  t.notOk(be.received.some(([d]) => d.toString().includes('"ping"')), 'a responded message does not reach the backend');

  const [rewritten, bin] = await one('{"type":"upper","n":42}');
  t.same(JSON.parse(rewritten), { type: 'rewritten', app: 'WsApp', api: 'Ws', was: 42 }, 'payloadFactory rewrote the message, with the call facts');
  t.equal(bin, false, 'a JSON rewrite goes as text');
  t.equal(be.received.at(-1)![0].toString(), rewritten, 'the backend got the rewritten message');

  t.same(await one('plain text, not JSON'), ['plain text, not JSON', false], 'plain text passes (json-eval finds nothing)');
  const blob = Buffer.from([0, 1, 2, 250, 251]);
  const p = nextMessages(c, 1);
  c.send(blob);
  const [[d, isBin]] = (await p) as [[Buffer, boolean]];
  t.ok(isBin && d.equals(blob), 'binary passes unchanged, as binary');

  t.same(JSON.parse((await one('send-internal'))[0]), { kind: 'public' }, 'outDispatchSeq dropped the "internal" backend message');
  t.same(JSON.parse((await one('send-tag'))[0]), { tagged: true, kind: 'tag' }, 'the outflow dispatch sequence ([transport.ws]) rewrote a backend message');

  const fault = JSON.parse((await one('{"type":"boom"}'))[0]) as { error: number; message: string };
  t.equal(fault.error, 101510, 'a failing dispatchSeq: the fault sequence answers the client');
  t.notOk(be.received.some(([d]) => d.toString().includes('boom')), 'the failed message was dropped');
  t.same(await one('{"type":"still-open"}'), ['{"type":"still-open"}', false], 'the session goes on');
  c.close();
});

t.test('sequences redeployed while a session is open apply to its next messages', async (t) => {
  const be = await wsBackend(t);
  const { s, open } = await startWsGateway(t, be.url);
  const c = (await open()).ws!;
  const echo = async (m: string): Promise<string> => {
    const p = nextMessages(c, 1);
    c.send(m);
    return (await p)[0]![0].toString();
  };
  t.equal(await echo('{"type":"upper","n":1}'), '{"type":"upper","n":1}', 'shipped dispatchSeq: pass-through');
  s.home.write(`${SEQ_DIR}/dispatchSeq.xml`, DISPATCH);
  await eventually(async () => (await echo('{"type":"upper","n":2}')).includes('rewritten'), 'the new dispatchSeq to apply');
  t.pass('the open session uses the redeployed dispatchSeq');
  c.close();
});
