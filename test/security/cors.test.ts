import t from 'tap';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, faultOf, request } from '../helpers/backends.js';

t.test('CORS: preflight answered without a token; allowed origins get the headers on answers and faults', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { apim: { cors: { enable: true, allow_origins: ['https://app.acme.test'], allow_credentials: true, allow_methods: ['GET', 'POST'], allow_headers: ['authorization', 'content-type'] } } },
    apis: {
      secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }),
      open: securedApiToml({ name: 'Open', context: '/open', production: be.url, extra: '[cors]\nenable = true\nallow_origins = ["*"]\n' }),
      nocors: securedApiToml({ name: 'NoCors', context: '/nocors', production: be.url, extra: '[cors]\nenable = false\n' }),
    },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const pre = await request(s.url('/secure/1.0.0/x'), { method: 'OPTIONS', headers: { origin: 'https://app.acme.test', 'access-control-request-method': 'POST' } });
  t.equal(pre.status, 200, 'preflight answered');
  t.equal(pre.headers['access-control-allow-origin'], 'https://app.acme.test', 'the allowed origin echoed (credentials are on)');
  t.equal(pre.headers['access-control-allow-credentials'], 'true');
  t.equal(pre.headers['access-control-allow-methods'], 'GET,POST');
  t.equal(pre.headers['access-control-allow-headers'], 'authorization,content-type');
  t.equal(pre.body.length, 0, 'no body');
  t.equal(be.seen.length, 0, 'the backend is not involved');

  const stranger = await request(s.url('/secure/1.0.0/x'), { method: 'OPTIONS', headers: { origin: 'https://evil.test', 'access-control-request-method': 'GET' } });
  t.equal(stranger.headers['access-control-allow-origin'], undefined, 'a foreign origin gets no CORS headers');

  const fault = await request(s.url('/secure/1.0.0/x'), { headers: { origin: 'https://app.acme.test' } });
  t.equal(faultOf(fault)?.code, 900902);
  t.equal(fault.headers['access-control-allow-origin'], 'https://app.acme.test', 'faults carry CORS headers too, so browsers can read them');

  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  const ok = await s.call('/secure/1.0.0/x', at, { headers: { origin: 'https://app.acme.test' } });
  t.equal(ok.status, 200);
  t.equal(ok.headers['access-control-allow-origin'], 'https://app.acme.test');

  const open = await request(s.url('/open/1.0.0/x'), { method: 'OPTIONS', headers: { origin: 'https://any.test', 'access-control-request-method': 'GET' } });
  t.equal(open.headers['access-control-allow-origin'], '*', 'a per-API override');
  const none = await request(s.url('/nocors/1.0.0/x'), { method: 'OPTIONS', headers: { origin: 'https://app.acme.test', 'access-control-request-method': 'GET' } });
  t.equal(none.status, 403, 'CORS off for this API: an OPTIONS with no resource');
  t.equal(faultOf(none)?.code, 900906);
});
