import t from 'tap';
import crypto from 'node:crypto';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, faultOf, type SeenRequest } from '../helpers/backends.js';
import { eventually } from '../helpers/home.js';

const dec = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString()) as Record<string, unknown>;
const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

t.test('JWT access tokens are checked in the gateway: every way a token can be wrong is 900901', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret', scopes: ['acme:read'] }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const tok = await s.token('acme-client', 'acme-secret');
  t.equal(tok.status, 200, 'a token from the key manager');
  const at = tok.accessToken!;
  // The main thread fetched the keys as the gateway started, before this call. An ask that comes within 1 s
  // of that fetch is answered with the keys just fetched, without a refresh or its log line
  // (security-extension.ts), so the unknown kid below comes more than 1 s after it.
  const firstCallAt = Date.now();
  const ok = await s.call('/secure/1.0.0/x', at);
  t.equal(ok.status, 200, 'a valid token passes');
  t.equal((ok.json as SeenRequest).headers.authorization, undefined, 'the client Authorization header does not reach the backend');

  const missing = await s.call('/secure/1.0.0/x');
  t.equal(missing.status, 401);
  t.equal(faultOf(missing)?.code, 900902);
  t.equal(faultOf(missing)?.message, 'Missing Credentials');
  t.match(faultOf(missing)?.description, /Authorization : Bearer ACCESS_TOKEN/, 'says what to send');
  t.equal(missing.headers['www-authenticate'], 'Bearer realm="Sluice"');

  const [h, p, sig] = at.split('.') as [string, string, string];
  const header = dec(h);
  const claims = dec(p);
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, string][] = [
    ['garbage', 'abc.def.ghi'],
    ['not a Bearer token', 'x'],
    ['alg none', `${enc({ ...header, alg: 'none' })}.${p}.`],
    ['tampered payload', `${h}.${enc({ ...claims, scope: 'acme:admin' })}.${sig}`],
    ['expired', await s.forge({ ...claims, jti: crypto.randomUUID(), iat: now - 7200, exp: now - 3600 })],
    ['not yet valid', await s.forge({ ...claims, jti: crypto.randomUUID(), nbf: now + 3600, exp: now + 7200 })],
    ['wrong issuer', await s.forge({ ...claims, jti: crypto.randomUUID(), iss: 'https://evil.example/oauth2/token' })],
    ['unknown audience', await s.forge({ ...claims, jti: crypto.randomUUID(), aud: 'nobody', client_id: 'nobody', azp: 'nobody' })],
    ['no jti', await s.forge({ ...claims, jti: undefined })],
  ];
  // HS256 with the RSA public key as the secret: the classic key confusion.
  const pub = s.kmPublicKeyPem();
  const hsBody = `${enc({ ...header, alg: 'HS256' })}.${enc(claims)}`;
  cases.push(['HS256 key confusion', `${hsBody}.${crypto.createHmac('sha256', pub).update(hsBody).digest('base64url')}`]);
  const stranger = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const sign = (hd: unknown, c: unknown) => { const b = `${enc(hd)}.${enc(c)}`; return `${b}.${crypto.sign('sha256', Buffer.from(b), stranger).toString('base64url')}`; };
  cases.push(['signed by a stranger with the real kid', sign(header, claims)]);
  cases.push(['signed by a stranger with an unknown kid', sign({ ...header, kid: 'acme-unknown' }, claims)]);
  for (const [what, token] of cases) {
    if (what === 'signed by a stranger with an unknown kid') await new Promise((r) => setTimeout(r, Math.max(0, firstCallAt + 1_100 - Date.now())));
    const r = what === 'not a Bearer token' ? await s.call('/secure/1.0.0/x', undefined, { headers: { authorization: `Basic ${token}` } }) : await s.call('/secure/1.0.0/x', token);
    t.equal(r.status, 401, `${what}: 401`);
    t.equal(faultOf(r)?.code, 900901, `${what}: 900901`);
    t.equal(faultOf(r)?.message, 'Invalid Credentials', `${what}: the reference system's wording`);
    t.match(r.headers['www-authenticate'], /^Bearer realm="Sluice", error="invalid_token", error_description=".+"$/, `${what}: WWW-Authenticate`);
    t.notMatch(r.text, /Bearer [A-Za-z0-9]/, `${what}: the request header is not echoed`);
  }
  t.equal(be.seen.length, 1, 'none of them reached the backend');
  await eventually(() => s.home.logs().some((l) => /signing keys \(JWKS\) refreshed/.test(String(l['msg']))), 'an unknown kid to trigger one JWKS refresh');
});

t.test('the auth header name follows apim.oauth_config.auth_header; enable_outbound_auth_header forwards it', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    conf: { apim: { oauth_config: { auth_header: 'X-Acme-Auth', enable_outbound_auth_header: true } } },
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  let r = await s.call('/secure/1.0.0/x', at);
  t.equal(faultOf(r)?.code, 900902, 'Authorization is not the configured header');
  r = await s.call('/secure/1.0.0/x', undefined, { headers: { 'x-acme-auth': `Bearer ${at}` } });
  t.equal(r.status, 200);
  t.equal((r.json as SeenRequest).headers['x-acme-auth'], `Bearer ${at}`, 'forwarded when enable_outbound_auth_header');
});
