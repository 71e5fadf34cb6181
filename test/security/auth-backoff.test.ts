// Repeated failed authentication backs off, hashing is bounded under a flood of bogus credentials, and the
// admin API answers only its allowed networks (issue 18 item 4). Attackers and legitimate clients use
// different loopback addresses (127.0.0.2 and 127.0.0.1), which are different clients to Sluice.
import t from 'tap';
import https from 'node:https';
import crypto from 'node:crypto';
import { startSecured, appToml, securedApiToml, basic, type SecuredSluice } from '../helpers/secured.js';
import { echoBackend } from '../helpers/backends.js';

interface Res { status: number; headers: Record<string, string | string[] | undefined>; json: Record<string, unknown> | undefined }

/** One HTTPS request from a chosen loopback address. */
function from(localAddress: string, url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Res> {
  return new Promise((resolve) => {
    const r = https.request(url, { method: o.method ?? 'GET', headers: o.headers, localAddress, agent: false, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let json: Record<string, unknown> | undefined;
        try { json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>; } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    r.on('error', (e) => resolve({ status: 0, headers: {}, json: { error: e.message } }));
    r.end(o.body);
  });
}

const FORM = 'application/x-www-form-urlencoded';
const ATTACKER = '127.0.0.2';
const ATTACKER_2 = '127.0.0.3';
const CLIENT = '127.0.0.1';

function tokenFrom(s: SecuredSluice, address: string, id: string, secret: string, form: Record<string, string> = { grant_type: 'client_credentials' }): Promise<Res> {
  return from(address, s.kmUrl('/oauth2/token'), { method: 'POST', headers: { authorization: basic(id, secret), 'content-type': FORM }, body: new URLSearchParams(form).toString() });
}

/** A metric's value from GET /metrics. */
async function metric(s: SecuredSluice, name: string): Promise<number> {
  const r = await new Promise<string>((resolve) => {
    https.get(s.kmUrl('/metrics'), { rejectUnauthorized: false, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve(text));
    });
  });
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(r);
  return m ? Number(m[1]) : NaN;
}

async function sluice(t: Tap.Test, conf: Record<string, unknown> = {}): Promise<SecuredSluice> {
  const be = await echoBackend(t);
  return startSecured(t, {
    conf,
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: {
      acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }),
      other: appToml({ name: 'AcmeOther', keys: [{ id: 'acme-other', secret: 'other-secret' }] }),
    },
  });
}

// A first back-off of a minute: long enough that nothing in these tests outlives it.
const LONG_BACKOFF = { sluice: { authentication: { backoff_base: '60s' } } };

t.test('150 wrong client secrets, then the right one: refused with 429 and Retry-After, without checking secrets; the client from elsewhere and other clients are served', async (t) => {
  const s = await sluice(t, LONG_BACKOFF);
  t.equal((await tokenFrom(s, CLIENT, 'acme-client', 'acme-secret')).status, 200, 'control: the client gets a token');
  const statuses = new Map<number, number>();
  for (let i = 0; i < 150; i++) {
    const r = await tokenFrom(s, ATTACKER, 'acme-client', `guess-${i}`);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    t.not(r.status, 200, 'no guess succeeds');
  }
  t.same(Object.fromEntries(statuses), { 401: 6, 429: 144 }, 'five free failures and the sixth are checked; then the back-off answers');
  const failuresBefore = await metric(s, 'sluice_auth_failures_total');
  const refusedBefore = await metric(s, 'sluice_auth_backoff_refusals_total');
  const right = await tokenFrom(s, ATTACKER, 'acme-client', 'acme-secret');
  t.equal(right.status, 429, 'the right secret from the guessing address is refused too');
  t.equal(right.json?.['error'], 'invalid_client');
  t.match(String(right.headers['retry-after']), /^\d+$/, 'with Retry-After');
  t.equal(await metric(s, 'sluice_auth_failures_total'), failuresBefore, 'a refused attempt checks no secret');
  t.equal(await metric(s, 'sluice_auth_backoff_refusals_total'), refusedBefore + 1, 'and is counted as refused');
  t.equal((await tokenFrom(s, CLIENT, 'acme-client', 'acme-secret')).status, 200, 'the same client from its own address is served');
  t.equal((await tokenFrom(s, ATTACKER, 'acme-other', 'other-secret')).status, 200, 'another client from the guessing address is served');
});

t.test('wrong resource owner passwords back off the password grant (429 invalid_grant); wrong admin passwords back off the admin API', async (t) => {
  const s = await sluice(t, LONG_BACKOFF);
  for (let i = 0; i < 8; i++) await tokenFrom(s, ATTACKER, 'acme-client', 'acme-secret', { grant_type: 'password', username: 'admin', password: `guess-${i}` });
  const pw = await tokenFrom(s, ATTACKER, 'acme-client', 'acme-secret', { grant_type: 'password', username: 'admin', password: 'admin' });
  t.equal(pw.status, 429, 'password grant: the right password from the guessing address waits');
  t.equal(pw.json?.['error'], 'invalid_grant');
  t.equal((await tokenFrom(s, CLIENT, 'acme-client', 'acme-secret', { grant_type: 'password', username: 'admin', password: 'admin' })).status, 200, 'the user from elsewhere is served');

  // Another guessing address: the user 'admin' from 127.0.0.2 is backed off already, whatever the door.
  t.equal((await from(ATTACKER, s.kmUrl('/api/am/admin/v1/apis'), { headers: { authorization: basic('admin', 'admin') } })).status, 429, 'the same user from the same address waits at the admin API too');
  const adminApi = (address: string, pw: string) => from(address, s.kmUrl('/api/am/admin/v1/apis'), { headers: { authorization: basic('admin', pw) } });
  const seen = new Set<number>();
  for (let i = 0; i < 8; i++) seen.add((await adminApi(ATTACKER_2, `guess-${i}`)).status);
  t.same([...seen].sort(), [401, 429], 'admin API: 401, then 429');
  const late = await adminApi(ATTACKER_2, 'admin');
  t.equal(late.status, 429, 'the right password from the guessing address waits');
  t.match(String(late.headers['retry-after']), /^\d+$/);
  t.equal((await adminApi(CLIENT, 'admin')).status, 200, 'the administrator from elsewhere is served');
});

t.test('32 clients flooding the token endpoint with bogus Basic credentials: hashing stays within its bound, the legitimate client is always served', async (t) => {
  const s = await sluice(t, { sluice: { authentication: { max_concurrent_hashes: 1, max_queued_hashes: 4 } } });
  t.equal((await tokenFrom(s, CLIENT, 'acme-client', 'acme-secret')).status, 200, 'the legitimate client (its secret now known to the key manager)');
  const attackers = Array.from({ length: 32 }, async (_, i) => {
    const seen: number[] = [];
    for (let round = 0; round < 6; round++) {
      // A made-up client id and secret each time: no back-off applies, only the hashing bound does.
      seen.push((await tokenFrom(s, ATTACKER, `bogus-${i}-${round}-${crypto.randomUUID()}`, crypto.randomUUID())).status);
    }
    return seen;
  });
  const legit: number[] = [];
  const flood = Promise.all(attackers);
  let done = false;
  void flood.then(() => { done = true; });
  while (!done) legit.push((await tokenFrom(s, CLIENT, 'acme-client', 'acme-secret')).status);
  const attacks = (await flood).flat();
  t.ok(legit.length > 0, `${legit.length} legitimate token requests during the flood`);
  t.same([...new Set(legit)], [200], 'every legitimate request got a token');
  t.notOk(attacks.includes(200), 'no bogus credential got a token');
  t.ok(attacks.includes(503), `verifications beyond the bound are refused with 503 instead of queueing without end (${JSON.stringify(Object.fromEntries([...new Set(attacks)].map((c) => [c, attacks.filter((x) => x === c).length])))})`);
  t.ok(attacks.every((c) => c === 401 || c === 503), 'bogus credentials get 401 or 503');
  t.ok(await metric(s, 'sluice_auth_hashes_refused_total') > 0, 'the refusals are counted');
});

t.test('the admin API answers only [sluice.admin_api] allowed_networks: others get 403 before their credentials are checked, whatever X-Forwarded-For says', async (t) => {
  const s = await sluice(t, { sluice: { admin_api: { allowed_networks: ['127.0.0.1'] } } });
  const adminApi = (address: string, headers: Record<string, string> = {}) =>
    from(address, s.kmUrl('/api/am/admin/v1/apis'), { headers: { authorization: basic('admin', 'admin'), ...headers } });
  t.equal((await adminApi(CLIENT)).status, 200, 'control: from an allowed address');
  const outside = await adminApi(ATTACKER);
  t.equal(outside.status, 403, 'from another address: 403');
  t.match(String(outside.json?.['description']), /allowed_networks/, 'the answer names the key');
  t.equal((await adminApi(ATTACKER, { 'x-forwarded-for': '127.0.0.1' })).status, 403, 'a forged X-Forwarded-For changes nothing');
  const failures = await metric(s, 'sluice_auth_failures_total');
  await from(ATTACKER, s.kmUrl('/api/am/admin/v1/apis'), { headers: { authorization: basic('admin', 'wrong') } });
  t.equal(await metric(s, 'sluice_auth_failures_total'), failures, 'no password was checked for it');
  t.equal((await tokenFrom(s, ATTACKER, 'acme-client', 'acme-secret')).status, 200, 'the token endpoint on the same port still answers everyone');
});

t.test('by default the admin API answers loopback only', async (t) => {
  const { loadConfig } = await import('../../conf/loader.js');
  const { adminApiView } = await import('../../conf/typed-config.js');
  const { makeHome } = await import('../helpers/home.js');
  const home = await makeHome({}, {}, { fresh: true });
  t.teardown(() => home.cleanup());
  t.same(adminApiView(loadConfig(home.dir)).allowedNetworks, ['127.0.0.0/8', '::1']);
});
