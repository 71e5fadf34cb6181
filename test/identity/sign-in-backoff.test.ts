/**
 * The sign-in page shares the back-off of failed authentications with the token endpoint (one user from one
 * address): guessing a password on the page is no cheaper than at /oauth2/token. Defaults: 5 free failures,
 * then 1 s doubled per further failure.
 */
import t from 'tap';
import { startTestKeyManager } from '../fixtures/keymanager-harness.js';
import { BrowserSession, hidden, pkcePair } from '../helpers/authorize-client.js';
import { WEB_APP } from './fixtures.js';
import { hashSecret } from '../../engine/keymanager/secret-hash.js';

t.test('failures at the token endpoint back the same user off on the sign-in page, with 429 and no password checked', async (t) => {
  const k = await startTestKeyManager(t, { apps: { 'web.toml': WEB_APP } });
  await k.km.store.users.put('alice', await hashSecret('alice-right'), []);
  await k.km.store.users.put('bob', await hashSecret('bob-right'), []);

  for (let i = 0; i < 6; i++) {
    const r = await k.token({ grant_type: 'password', username: 'alice', password: `guess-${i}` }, 'web-client', 'web-secret');
    t.equal(r.status, 400, `guess ${i + 1} at the token endpoint: invalid_grant`);
  }

  const browser = new BrowserSession(k.base);
  const page = await browser.authorize({ client_id: 'web-client', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
  t.equal(page.status, 200, 'the sign-in page');
  const refused = await browser.login(page, 'alice', 'alice-right');
  t.equal(refused.status, 429, 'the right password is refused while alice is backed off');
  t.ok(Number(refused.headers['retry-after']) >= 1, `Retry-After: ${refused.headers['retry-after']}`);
  t.match(refused.text, /Too many failed sign-ins/, 'the page says why');
  t.equal(hidden(refused.text, 'consent'), undefined, 'no consent form');
  t.ok(hidden(refused.text, 'request'), 'the sign-in form is shown again');

  const other = await browser.login(page, 'bob', 'bob-right');
  t.equal(other.status, 200, 'another user from the same address signs in');
  t.ok(hidden(other.text, 'consent'), 'bob reaches the consent page');

  await new Promise((r) => setTimeout(r, 1100));
  const after = await browser.login(page, 'alice', 'alice-right');
  t.equal(after.status, 200, 'after the back-off alice signs in');
  t.ok(hidden(after.text, 'consent'), 'alice reaches the consent page');
});
