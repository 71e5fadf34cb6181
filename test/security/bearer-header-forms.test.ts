import t from 'tap';
import { startSecured, appToml, securedApiToml } from '../helpers/secured.js';
import { echoBackend, faultOf } from '../helpers/backends.js';
import { bearerCandidate, BEARER } from '../../engine/security/bearer-token.js';
import { TokenCache, tailHash } from '../../engine/security/token-cache.js';

t.test('every spelling RFC 6750 allows passes, before and after the token is cached; anything else is 900901', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const spellings = (at: string) => [`bearer ${at}`, `BEARER\t${at}`, `  Bearer   ${at} \t`, `Bearer ${at}`, `Bearer ${at}  `];
  // A fresh token per round: the first spelling of each round is validated, the others are cache hits.
  for (let round = 0; round < 2; round++) {
    const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
    const list = spellings(at);
    if (round === 1) list.reverse();
    for (const value of list) {
      const r = await s.call('/secure/1.0.0/x', undefined, { headers: { authorization: value } });
      t.equal(r.status, 200, `round ${round}: ${JSON.stringify(value.replace(at, '<token>'))} passes`);
    }
  }
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  t.equal((await s.call('/secure/1.0.0/x', at)).status, 200, 'cached');
  const bad = [`Bearer ${at} extra`, `Bearer ${at.slice(0, 40)} ${at.slice(40)}`, `Bearer${at}`, `Token ${at}`, `Bearer x${at}`, `Bearer ${at.slice(1)}`];
  for (const value of bad) {
    const r = await s.call('/secure/1.0.0/x', undefined, { headers: { authorization: value } });
    t.equal(faultOf(r)?.code, 900901, `${JSON.stringify(value.replace(at, '<token>'))} is refused though the token is cached`);
  }
});

t.test('bearerCandidate gives only what BEARER would give, or null', async (t) => {
  const tok = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
  for (const v of [`Bearer ${tok}`, `Bearer    ${tok}`, `Bearer ${tok} \t `]) {
    t.equal(bearerCandidate(v), tok, JSON.stringify(v));
    t.equal(BEARER.exec(v)?.[1], tok);
  }
  for (const v of [`bearer ${tok}`, ` Bearer ${tok}`, `Bearer\t${tok}`, 'Bearer ', 'Bearer    ', `Basic ${tok}`]) t.equal(bearerCandidate(v), null, `${JSON.stringify(v)}: left to BEARER`);
  // A candidate may hold whitespace: it is only ever a cache key, and the cache holds nothing BEARER refused.
  t.equal(bearerCandidate(`Bearer a b`), 'a b');
  t.equal(BEARER.exec('Bearer a b'), null);
});

t.test('the token cache keyed by a token tail never answers for another token with the same tail', async (t) => {
  const c = new TokenCache<string>(10, 60_000, 8);
  const now = Date.now();
  c.set('AAAA.payload-one.SIGNATURE', 'one', now + 60_000, now);
  t.equal(c.get('AAAA.payload-one.SIGNATURE', now), 'one');
  t.equal(c.get('AAAA.payload-two.SIGNATURE', now), undefined, 'same tail, different token: a miss');
  c.set('AAAA.payload-two.SIGNATURE', 'two', now + 60_000, now);
  t.equal(c.get('AAAA.payload-two.SIGNATURE', now), 'two', 'the newer takes the slot');
  t.equal(c.get('AAAA.payload-one.SIGNATURE', now), undefined, 'the older is gone, not confused with it');
  t.equal(c.size, 1);
  t.equal(c.get('short', now), undefined);
  c.set('short', 's', now + 1000, now);
  t.equal(c.get('short', now), 's', 'keys shorter than the tail are whole');
  t.equal(c.get('short', now + 1000), undefined, 'expired at its deadline');
  const full = new TokenCache<number>(2, 60_000, 4);
  full.set('k-000001', 1, now + 60_000, now);
  full.set('k-000002', 2, now + 60_000, now);
  full.set('k-000002', 22, now + 60_000, now);
  t.equal(full.get('k-000001', now), 1, 'replacing an entry does not evict another');
  full.set('k-000003', 3, now + 60_000, now);
  t.equal(full.get('k-000001', now), undefined, 'the oldest goes when full');
  t.equal(full.deleteWhere((v) => v === 3), 1);
});

t.test('two tokens whose tails hash alike share a cache slot and never answer for each other', async (t) => {
  // The cache keys its Map by a 30-bit hash of the tail: find two tokens of the same length whose tails
  // differ and hash alike (a birthday search, some 40 000 tokens on average).
  const seen = new Map<number, string>();
  let pair: [string, string] | null = null;
  for (let i = 0; pair === null && i < 1_000_000; i++) {
    const tok = `eyJhbGciOi.payload.${i.toString(36).padStart(8, '0')}`;
    const h = tailHash(tok, 8);
    const other = seen.get(h);
    if (other !== undefined) pair = [other, tok];
    else seen.set(h, tok);
  }
  if (pair === null) { t.fail('no two tails hashed alike'); return; }
  const [a, b] = pair;
  t.not(a.slice(-8), b.slice(-8), 'different tails');
  const c = new TokenCache<string>(10, 60_000, 8);
  const now = Date.now();
  c.set(a, 'a', now + 60_000, now);
  t.equal(c.get(b, now), undefined, 'the other token is a miss');
  c.set(b, 'b', now + 60_000, now);
  t.equal(c.get(b, now), 'b');
  t.equal(c.get(a, now), undefined, 'the older is gone, not answered as the newer');
  t.equal(c.size, 1);
});

t.test('the entry last found is never answered after the cache changed: revoked, replaced, evicted or expired', async (t) => {
  const now = Date.now();
  // The same string objects each time, as the authenticate phase hands over while a header value repeats.
  const one = 'AAAA.payload-one.SIGNATURE';
  const c = new TokenCache<string>(2, 60_000, 8);
  c.set(one, 'one', now + 60_000, now);
  t.equal(c.get(one, now), 'one');
  t.equal(c.get(one, now), 'one', 'found again (the kept entry)');
  t.equal(c.deleteWhere((v) => v === 'one'), 1);
  t.equal(c.get(one, now), undefined, 'revoked: gone');
  c.set(one, 'one', now + 60_000, now);
  t.equal(c.get(one, now), 'one');
  const sameTail = 'AAAA.payload-two.SIGNATURE';
  c.set(sameTail, 'two', now + 60_000, now);
  t.equal(c.get(one, now), undefined, 'replaced in its slot by another token: gone');
  t.equal(c.get(sameTail, now), 'two');
  c.set('k-000003', 'three', now + 60_000, now);
  c.set('k-000004', 'four', now + 60_000, now);
  t.equal(c.get(sameTail, now), undefined, 'evicted when full: gone');
  t.equal(c.get('k-000004', now), 'four');
  t.equal(c.get('k-000004', now + 60_000), undefined, 'expired at its deadline');
  t.equal(c.get('k-000004', now), undefined, 'and dropped');
});

t.test('a blank credential is missing credentials (900902), as the first value the gateway sees and after a valid one repeats', async (t) => {
  const be = await echoBackend(t);
  const s = await startSecured(t, {
    apis: { secure: securedApiToml({ name: 'AcmeSecure', context: '/secure', production: be.url }) },
    apps: { acme: appToml({ name: 'AcmeApp', keys: [{ id: 'acme-client', secret: 'acme-secret' }], subscriptions: [{ api: 'AcmeSecure:1.0.0' }] }) },
  });
  const blank = async (value: string, what: string) => {
    const r = await s.call('/secure/1.0.0/x', undefined, { headers: { authorization: value } });
    t.equal(faultOf(r)?.code, 900902, `${JSON.stringify(value)} ${what}`);
  };
  // First: the phase has seen no value yet (its last value is none, not an empty one).
  await blank('', 'before any other value');
  await blank('', 'again');
  await blank(' \t ', 'of whitespace');
  const at = (await s.token('acme-client', 'acme-secret')).accessToken!;
  for (let i = 0; i < 2; i++) t.equal((await s.call('/secure/1.0.0/x', at)).status, 200, 'a valid token, repeated');
  await blank('', 'after the valid one');
  t.equal((await s.call('/secure/1.0.0/x', at)).status, 200, 'the valid one again');
  t.equal(be.seen.length, 3, 'only the valid calls reached the backend');
});
