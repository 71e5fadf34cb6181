import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request, type SeenRequest } from '../helpers/backends.js';
import { hostMatches, ProxyRules, parseProxyProfilesXml } from '../../transport/sender/proxy-rules.js';

/** A forward proxy for plain HTTP: records the absolute-form request line and forwards it. */
async function forwardProxy(t: Tap.Test) {
  const lines: string[] = [];
  const auths: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    lines.push(`${req.method} ${req.url}`);
    auths.push(req.headers['proxy-authorization']);
    const u = new URL(req.url!);
    const up = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: { ...req.headers, 'x-via-proxy': '1' } }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { port: (server.address() as net.AddressInfo).port, lines, auths };
}

t.test('sender.http.proxyHost sends plain HTTP calls through a forward proxy; nonProxyHosts bypass it', async (t) => {
  const be = await echoBackend(t);
  const proxy = await forwardProxy(t);
  const s = await startSluice(t, { transport: { passthru_http: { 'sender.http.proxyHost': '127.0.0.1', 'sender.http.proxyPort': proxy.port, 'sender.http.nonProxyHosts': 'localhost|*.internal.example' } } }, {
    [`${API_DIR}/via.toml`]: apiToml({ name: 'Via', context: '/via', production: `http://127.0.0.1:${be.port}/base` }),
    [`${API_DIR}/direct.toml`]: apiToml({ name: 'Direct', context: '/direct', production: `http://localhost:${be.port}/base` }),
  });
  let r = await request(s.url('/via/1.0.0/x?q=1'));
  t.equal(r.status, 200);
  t.same(proxy.lines, [`GET http://127.0.0.1:${be.port}/base/x?q=1`], 'absolute-form request line to the proxy');
  t.equal((r.json as SeenRequest).headers['x-via-proxy'], '1');
  r = await request(s.url('/direct/1.0.0/x'));
  t.equal(r.status, 200);
  t.equal(proxy.lines.length, 1, 'localhost bypasses the proxy');
  t.equal((r.json as SeenRequest).headers['x-via-proxy'], undefined);
});

t.test('[[transport.http.proxy_profile]] picks a proxy per target host, with credentials', async (t) => {
  const be = await echoBackend(t);
  const proxy = await forwardProxy(t);
  const s = await startSluice(t, { transport: { http: { proxy_profile: [{ target_hosts: ['127.0.0.1'], proxy_host: '127.0.0.1', proxy_port: proxy.port, proxy_username: 'acme', proxy_password: 'pw' }] } } }, {
    [`${API_DIR}/via.toml`]: apiToml({ name: 'Via', context: '/via', production: `http://127.0.0.1:${be.port}` }),
  });
  const r = await request(s.url('/via/1.0.0/x'));
  t.equal(r.status, 200);
  t.equal(proxy.auths[0], 'Basic ' + Buffer.from('acme:pw').toString('base64'));
});

t.test('host patterns: a period precedes the asterisk of a sub-domain wildcard', async (t) => {
  t.ok(hostMatches('*.example.com', 'api.example.com'));
  t.ok(hostMatches('*.example.com', 'a.b.example.com'));
  t.notOk(hostMatches('*.example.com', 'example.com'));
  t.notOk(hostMatches('*.example.com', 'badexample.com'));
  t.ok(hostMatches('*', 'anything'));
  t.ok(hostMatches('API.Example.com', 'api.example.com'));
  const xml = `<profiles><profile><targetHosts>*.acme.test, api.other.test</targetHosts><proxyHost>p1</proxyHost><proxyPort>3128</proxyPort>
    <proxyUserName>u</proxyUserName><proxyPassword>p</proxyPassword><bypass>direct.acme.test</bypass></profile>
    <profile><targetHosts>*</targetHosts><proxyHost>p2</proxyHost><proxyPort>8080</proxyPort></profile></profiles>`;
  t.equal(parseProxyProfilesXml(xml).length, 2);
  const rules = new ProxyRules({ enabled: true, warnOnHttp500: [], proxy: undefined, proxyProfilesXml: xml, profiles: [] });
  t.equal(rules.select('x.acme.test')?.host, 'p1');
  t.equal(rules.select('x.acme.test')?.authorization, 'Basic ' + Buffer.from('u:p').toString('base64'));
  t.equal(rules.select('direct.acme.test'), null, 'bypassed');
  t.equal(rules.select('elsewhere.test')?.host, 'p2');
  t.throws(() => parseProxyProfilesXml('<profiles><profile><proxyHost>p</proxyHost></profile></profiles>'), /proxyPort/);
});
