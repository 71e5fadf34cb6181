import t from 'tap';
import { startTestKeyManager } from '../fixtures/keymanager-harness.js';

for (const n of [8, 32]) {
  t.test(`${n} concurrent refreshes of one token: exactly one wins, decided by the store`, async (t) => {
    const k = await startTestKeyManager(t);
    for (let round = 0; round < 3; round++) {
      const pw = await k.token({ grant_type: 'password', username: 'admin', password: 'admin' });
      const race = await Promise.all(Array.from({ length: n }, () => k.token({ grant_type: 'refresh_token', refresh_token: pw.json.refresh_token })));
      const wins = race.filter((r) => r.status === 200);
      t.equal(wins.length, 1, `round ${round}: ${wins.length} of ${n} won`);
      for (const r of race.filter((x) => x.status !== 200)) {
        t.equal(r.status, 400);
        t.equal(r.json.error, 'invalid_grant');
      }
      const winner = wins[0]!.json;
      t.equal((await k.token({ grant_type: 'refresh_token', refresh_token: winner.refresh_token })).status, 200, 'the winner\'s refresh token works');
    }
  });
}
