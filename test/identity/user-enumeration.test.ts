/**
 * User enumeration (OWASP WSTG-IDNT-04, ATHN-02): an unknown user and a known user with a wrong password get
 * the same answer and cost the same work, at the token endpoint and on the sign-in page. The cost is compared
 * as a ratio of medians taken in the same run, interleaved, with a 3x margin either way: without the dummy
 * scrypt of an unknown user the ratio is about 1:30 (a table lookup against a hash), so the check fails on
 * such code and not on a busy machine. Each known user is tried once, so that a lock-out wrapped around the
 * user store later does not change what is measured.
 */
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { startTestKeyManager, type TestKeyManager } from '../fixtures/keymanager-harness.js';
import { BrowserSession, pkcePair } from '../helpers/authorize-client.js';
import { WEB_APP } from './fixtures.js';
import { hashSecret } from '../../engine/keymanager/secret-hash.js';

const N = 9;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(k: TestKeyManager, attempt: (user: string) => Promise<string>): Promise<{ known: number[]; unknown: number[]; answers: Set<string> }> {
  const known: number[] = [];
  const unknown: number[] = [];
  const answers = new Set<string>();
  for (let i = 0; i < N; i++) {
    for (const [list, user] of [[known, `user${i}`], [unknown, `ghost${i}`]] as const) {
      const t0 = performance.now();
      answers.add(await attempt(user));
      list.push(performance.now() - t0);
    }
  }
  return { known, unknown, answers };
}

t.test('unknown users and wrong passwords: one answer, one cost', async (t) => {
  const k = await startTestKeyManager(t, { apps: { 'web.toml': WEB_APP } });
  for (let i = 0; i < N; i++) await k.km.store.users.put(`user${i}`, await hashSecret(`right-password-${i}`), []);

  const grant = await measure(k, async (user) => (await k.token({ grant_type: 'password', username: user, password: 'wrong' }, 'web-client', 'web-secret')).text);
  t.equal(grant.answers.size, 1, `the token endpoint answers alike: ${[...grant.answers].join(' | ')}`);
  const r1 = median(grant.unknown) / median(grant.known);
  t.ok(r1 > 1 / 3 && r1 < 3, `token endpoint: unknown/known median cost ratio ${r1.toFixed(2)} (known ${median(grant.known).toFixed(1)} ms, unknown ${median(grant.unknown).toFixed(1)} ms)`);

  const browser = new BrowserSession(k.base);
  const page = await browser.authorize({ client_id: 'web-client', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
  const signin = await measure(k, async (user) => {
    const r = await browser.login(page, user, 'wrong');
    return [...r.text.matchAll(/class="error">([^<]*)</g)].map((m) => m[1]).join('/');
  });
  t.equal(signin.answers.size, 1, `the sign-in page answers alike: ${[...signin.answers].join(' | ')}`);
  const r2 = median(signin.unknown) / median(signin.known);
  t.ok(r2 > 1 / 3 && r2 < 3, `sign-in page: unknown/known median cost ratio ${r2.toFixed(2)}`);
});
