/**
 * The X-RateLimit fields of a proxied answer are written as bytes (transport/number-lines.ts), after the
 * rest of the head, which stays the kept one; headers added as text (CORS) and local answers take
 * them as pairs (CallState.extraResponseHeaders). Each answer must carry each field once, with its own value.
 */
import http from 'node:http';
import t from 'tap';
import { faultOf } from '../helpers/backends.js';
import { inOneWindow, policy, securedGateway } from './fixtures.js';

const fieldCount = (raw: string[], name: string): number => raw.filter((v, i) => i % 2 === 0 && v.toLowerCase() === name).length;

t.test('answers, CORS answers and throttle faults each carry each X-RateLimit field once, with its own value', async (t) => {
  const g = await securedGateway(t, {
    subPolicy: 'Acme6PerMin', policies: policy('subscription', 'Acme6PerMin', 6, 'min', 'stop_on_quota_reach = true'),
    conf: { apim: { cors: { enable: true, allow_origins: ['https://app.acme.test'], allow_methods: ['GET'], allow_headers: ['authorization'] } } },
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const plan = [{}, { origin: 'https://app.acme.test' }, {}, {}, { origin: 'https://app.acme.test' }, {}, {}, { origin: 'https://app.acme.test' }];
  const expected = ['5', '4', '3', '2', '1', '0', '0', '0'];
  for (let i = 0; i < plan.length; i++) {
    const r = await g.call(at, '/secure/1.0.0/x', plan[i]!);
    const what = `call ${i + 1}${'origin' in plan[i]! ? ' with an Origin' : ''}`;
    t.equal(r.status, i < 6 ? 200 : 429, `${what}: status`);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.equal(fieldCount(r.rawHeaders, name), 1, `${what}: one ${name}`);
    t.equal(r.headers['x-ratelimit-limit'], '6', `${what}: the limit`);
    t.equal(r.headers['x-ratelimit-remaining'], expected[i], `${what}: its own remaining`);
    t.ok(Number(r.headers['x-ratelimit-reset']) >= 1 && Number(r.headers['x-ratelimit-reset']) <= 60, `${what}: a reset within the window`);
    t.equal(r.headers['access-control-allow-origin'], 'origin' in plan[i]! ? 'https://app.acme.test' : undefined, `${what}: CORS only when asked`);
    if (i >= 6) t.equal(faultOf(r)?.code, 900804, `${what}: the throttle fault`);
  }
});

/** One request on the agent's one kept-alive connection: status, raw headers, body, and whether the socket was reused. */
function onKeptConnection(agent: http.Agent, url: string, method: string, at: string): Promise<{ status: number; raw: string[]; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method, agent, headers: { authorization: `Bearer ${at}` } }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, raw: res.rawHeaders, body, reused: r.reusedSocket }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.setTimeout(10_000, () => r.destroy(new Error('client timeout')));
    r.end();
  });
}

t.test('the X-RateLimit fields end a head well however the body is framed: a length, none, chunks, no chunks, a HEAD', async (t) => {
  // Each answer leaves the gateway by another way (the head with the body, the head alone at the end, the
  // head with the empty chunked body): one kept-alive connection carries them all, so a head that ends
  // wrong breaks the answers after it.
  const g = await securedGateway(t, {
    subPolicy: 'Acme20PerMin', policies: policy('subscription', 'Acme20PerMin', 20, 'min'),
    backend: (req, res) => {
      const p = req.url!.split('/').pop();
      if (p === 'none') { res.writeHead(204); res.end(); return true; }
      if (p === 'zero') { res.writeHead(200, { 'content-length': '0' }); res.end(); return true; }
      if (p === 'chunks') { res.writeHead(200, { 'transfer-encoding': 'chunked' }); res.write('abc'); res.end('defg'); return true; }
      if (p === 'nochunks') { res.writeHead(200, { 'transfer-encoding': 'chunked' }); res.end(); return true; }
      return false;
    },
  });
  const at = await g.token();
  await inOneWindow(60_000, 8000);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const plan: [string, string, number, (body: string) => boolean][] = [
    ['GET', 'x', 200, (b) => JSON.parse(b).url === '/x'],
    ['GET', 'none', 204, (b) => b === ''],
    ['GET', 'zero', 200, (b) => b === ''],
    ['GET', 'chunks', 200, (b) => b === 'abcdefg'],
    ['GET', 'nochunks', 200, (b) => b === ''],
    ['GET', 'x', 200, (b) => JSON.parse(b).url === '/x'],
    // Last: Node's client keeps no connection after a HEAD answer without a length (llhttp's keep-alive
    // verdict comes before it is told the answer has no body), and the echo backend sends none.
    ['HEAD', 'x', 200, (b) => b === ''],
  ];
  for (let i = 0; i < plan.length; i++) {
    const [method, p, status, bodyOk] = plan[i]!;
    const r = await onKeptConnection(agent, g.s.url(`/secure/1.0.0/${p}`), method, at);
    const what = `${method} /${p}`;
    t.equal(r.status, status, `${what}: status`);
    t.ok(bodyOk(r.body), `${what}: its own body (${JSON.stringify(r.body.slice(0, 40))})`);
    if (i > 0) t.ok(r.reused, `${what}: on the connection the answer before it left usable`);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.equal(fieldCount(r.raw, name), 1, `${what}: one ${name}`);
    const value = (name: string) => r.raw[r.raw.findIndex((v, k) => k % 2 === 0 && v.toLowerCase() === name) + 1];
    t.equal(value('x-ratelimit-limit'), '20', `${what}: the limit`);
    t.equal(value('x-ratelimit-remaining'), String(19 - i), `${what}: its own remaining`);
  }
});
