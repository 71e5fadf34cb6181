/**
 * The attack corpus of the authorization endpoint and the authorization_code grant
 * (test/fixtures/identity/authorize-attacks.json), each case against a real key manager over HTTPS.
 * Written before the endpoint existed: every case failed then (404 on /oauth2/authorize, and
 * unsupported_grant_type at the token endpoint).
 */
import fs from 'node:fs';
import t from 'tap';
import { startTestKeyManager, type TestKeyManager } from '../fixtures/keymanager-harness.js';
import { BrowserSession, hidden, pkcePair, type AuthorizeParams } from '../helpers/authorize-client.js';
import { WEB_APP, OTHER_WEB_APP, NO_CODE_APP, REDIRECT } from './fixtures.js';

interface Corpus {
  authorize: { name: string; source: string; query?: Record<string, string | null>; raw?: string; expect: { login?: boolean; page?: number; escaped?: string; redirect?: string; at?: string; state?: string | null } }[];
  token: { name: string; source: string; attack: string; expect: { status: number; error?: string; firstRevoked?: boolean; ownerStillRedeems?: boolean } }[];
  csrf: { name: string; source: string; attack: string; expect: { consent?: boolean; page?: number } }[];
}
const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/identity/authorize-attacks.json', import.meta.url), 'utf8')) as Corpus;
const apps = { 'web.toml': WEB_APP, 'other-web.toml': OTHER_WEB_APP, 'no-code.toml': NO_CODE_APP };

let clock = 0;
const now = (): number => Date.now() + clock;

function baseParams(): AuthorizeParams {
  return { client_id: 'web-client', redirect_uri: REDIRECT, scope: 'openid', state: 'st', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
}

t.test('authorization requests', async (t) => {
  const k = await startTestKeyManager(t, { apps, opts: { now } });
  for (const c of corpus.authorize) {
    const b = new BrowserSession(k.base);
    const params = baseParams();
    for (const [key, v] of Object.entries(c.query ?? {})) {
      if (v === null) params[key] = undefined;
      else params[key] = v === '@x2049' ? 'x'.repeat(2049) : v;
    }
    const r = await b.authorize(params, c.raw);
    const label = `${c.name} [${c.source}]`;
    if (c.expect.login) {
      t.equal(r.status, 200, label);
      t.ok(hidden(r.text, 'request'), `${label}: sign-in form`);
      continue;
    }
    if (c.expect.page !== undefined) {
      t.equal(r.status, c.expect.page, label);
      t.notOk(r.headers.location, `${label}: not redirected`);
      t.notMatch(r.text, /<form/, `${label}: no form`);
      if (c.expect.escaped) t.notOk(r.text.includes(c.expect.escaped), `${label}: escaped`);
      continue;
    }
    t.equal(r.status, 302, label);
    const loc = new URL(String(r.headers.location));
    t.equal(`${loc.origin}${loc.pathname}`, c.expect.at ?? REDIRECT, `${label}: only to the registered URI`);
    t.equal(loc.searchParams.get('error'), c.expect.redirect!, `${label}: ${loc.searchParams.get('error_description')}`);
    t.equal(loc.searchParams.get('code'), null, `${label}: no code`);
    if (c.expect.state !== undefined) t.equal(loc.searchParams.get('state'), c.expect.state, `${label}: state`);
    else t.equal(loc.searchParams.get('state'), 'st', `${label}: state returned`);
  }
});

async function codeFor(k: TestKeyManager, extra: Partial<AuthorizeParams> = {}): Promise<{ code: string; verifier: string; challenge: string }> {
  const { verifier, challenge } = pkcePair();
  const b = new BrowserSession(k.base);
  const params: AuthorizeParams = { ...baseParams(), code_challenge: challenge, ...extra } as AuthorizeParams;
  for (const [key, v] of Object.entries(params)) if (v === undefined) delete params[key];
  const { location } = await b.flow(params, 'admin', 'admin');
  return { code: location.searchParams.get('code')!, verifier, challenge };
}

t.test('token requests with a code', async (t) => {
  const k = await startTestKeyManager(t, { apps, opts: { now } });
  const lax = await startTestKeyManager(t, { apps, conf: { sluice: { oauth: { pkce_required: false } } } });
  const exchange = (km: TestKeyManager, form: Record<string, string>, id = 'web-client', secret = 'web-secret') =>
    km.token({ grant_type: 'authorization_code', redirect_uri: REDIRECT, ...form }, id, secret);
  for (const c of corpus.token) {
    const label = `${c.name} [${c.source}]`;
    let r;
    if (c.attack === 'verifier-without-challenge') {
      const { code } = await codeFor(lax, { code_challenge: undefined, code_challenge_method: undefined });
      r = await exchange(lax, { code, code_verifier: pkcePair().verifier });
    } else {
      const { code, verifier, challenge } = await codeFor(k);
      switch (c.attack) {
        case 'control': r = await exchange(k, { code, code_verifier: verifier }); break;
        case 'reuse': {
          const first = await exchange(k, { code, code_verifier: verifier });
          t.equal(first.status, 200, `${label}: first exchange`);
          r = await exchange(k, { code, code_verifier: verifier });
          const intro = await k.introspect(first.json.access_token);
          t.equal(intro.json.active, false, `${label}: the first access token is revoked`);
          t.ok(k.events.some((e) => e.consumerKey === 'web-client'), `${label}: the gateways are told`);
          break;
        }
        case 'other-client': {
          r = await exchange(k, { code, code_verifier: verifier, redirect_uri: 'https://other.example/cb' }, 'other-web-client', 'other-web-secret');
          const owner = await exchange(k, { code, code_verifier: verifier });
          t.equal(owner.status, 200, `${label}: the owner still redeems its code`);
          break;
        }
        case 'wrong-redirect': r = await exchange(k, { code, code_verifier: verifier, redirect_uri: 'https://app.example/cb2' }); break;
        case 'missing-verifier': r = await exchange(k, { code }); break;
        case 'wrong-verifier': r = await exchange(k, { code, code_verifier: pkcePair().verifier }); break;
        case 'challenge-as-verifier': r = await exchange(k, { code, code_verifier: challenge }); break;
        case 'expired': {
          clock += 61_000;
          try { r = await exchange(k, { code, code_verifier: verifier }); } finally { clock -= 61_000; }
          break;
        }
        case 'guessed': r = await exchange(k, { code: pkcePair().verifier, code_verifier: verifier }); break;
        default: throw new Error(`unknown attack ${c.attack}`);
      }
    }
    t.equal(r.status, c.expect.status, `${label}: ${r.text}`);
    if (c.expect.error) t.equal(r.json.error, c.expect.error, label);
    t.equal(r.headers['cache-control'], 'no-store', `${label}: no-store`);
  }
});

t.test('sign-in and consent forms (CSRF)', async (t) => {
  const k = await startTestKeyManager(t, { apps, opts: { now } });
  for (const c of corpus.csrf) {
    const label = `${c.name} [${c.source}]`;
    const b = new BrowserSession(k.base);
    const page = await b.authorize(baseParams());
    let r;
    switch (c.attack) {
      case 'control': r = await b.login(page, 'admin', 'admin'); break;
      case 'no-cookie': b.cookie = undefined; r = await b.login(page, 'admin', 'admin'); break;
      case 'other-browser-state': {
        const attacker = new BrowserSession(k.base);
        const theirs = await attacker.authorize(baseParams());
        r = await b.login(theirs, 'admin', 'admin');
        break;
      }
      case 'foreign-origin': r = await b.login(page, 'admin', 'admin', { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' }); break;
      case 'null-origin': r = await b.login(page, 'admin', 'admin', { origin: 'null' }); break;
      case 'cross-site-fetch': r = await b.login(page, 'admin', 'admin', { 'sec-fetch-site': 'cross-site' }); break;
      case 'tampered-state': {
        const sealed = hidden(page.text, 'request')!;
        const parts = sealed.split('.');
        const body = Buffer.from(parts[1]!, 'base64url');
        body[0] = body[0]! ^ 1;
        r = await b.post({ step: 'login', request: `${parts[0]}.${body.toString('base64url')}.${parts[2]}`, username: 'admin', password: 'admin' });
        break;
      }
      case 'login-as-consent': r = await b.post({ step: 'consent', consent: hidden(page.text, 'request')!, decision: 'allow' }); break;
      case 'consent-replay': {
        const consent = await b.login(page, 'admin', 'admin');
        t.equal((await b.consent(consent)).status, 303, `${label}: first Allow`);
        r = await b.consent(consent);
        break;
      }
      case 'expired-page': {
        clock += 601_000;
        try { r = await b.login(page, 'admin', 'admin'); } finally { clock -= 601_000; }
        break;
      }
      default: throw new Error(`unknown attack ${c.attack}`);
    }
    if (c.expect.consent) {
      t.equal(r.status, 200, label);
      t.ok(hidden(r.text, 'consent'), `${label}: consent page`);
    } else {
      t.equal(r.status, c.expect.page!, `${label}: ${r.text.slice(0, 120)}`);
      t.notOk(hidden(r.text, 'consent'), `${label}: no consent page`);
      t.notOk(r.headers.location, `${label}: no redirect`);
    }
  }
});

t.test('nonce replay: a nonce the client already used is refused, and each id_token carries its own', async (t) => {
  const k = await startTestKeyManager(t, { apps });
  const first = await codeFor(k, { nonce: 'n-once-1' });
  const tok = await k.token({ grant_type: 'authorization_code', code: first.code, redirect_uri: REDIRECT, code_verifier: first.verifier }, 'web-client', 'web-secret');
  t.equal(tok.status, 200);
  const again = await new BrowserSession(k.base).authorize({ ...baseParams(), nonce: 'n-once-1' });
  t.equal(again.status, 302);
  const loc = new URL(String(again.headers.location));
  t.equal(loc.searchParams.get('error'), 'invalid_request');
  t.match(loc.searchParams.get('error_description'), /nonce/);
  // Two sign-ins started with the same nonce before either finished: only one gets a code.
  const b1 = new BrowserSession(k.base);
  const b2 = new BrowserSession(k.base);
  const p1 = await b1.authorize({ ...baseParams(), nonce: 'n-race' });
  const p2 = await b2.authorize({ ...baseParams(), nonce: 'n-race' });
  const c1 = await b1.consent(await b1.login(p1, 'admin', 'admin'));
  const c2 = await b2.consent(await b2.login(p2, 'admin', 'admin'));
  const codes = [c1, c2].map((r) => new URL(String(r.headers.location)).searchParams.get('code')).filter(Boolean);
  t.equal(codes.length, 1, 'one code for one nonce');
  t.equal(new URL(String(c2.headers.location)).searchParams.get('error'), 'invalid_request');
});
