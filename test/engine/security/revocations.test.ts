import t from 'tap';
import { RevocationList } from '../../../engine/security/revocations.js';

// The list answers the same id from its last answer while nothing changed: a revocation or a purge in
// between must be seen by the very next question about that id.

t.test('an id asked about before is revoked from the next question on', async (t) => {
  const list = new RevocationList();
  const id = 'jti-1';
  t.equal(list.has(id), false);
  t.equal(list.has(id), false, 'asked again, still not revoked');
  list.add('jti-other', 2_000);
  t.equal(list.has(id), false, 'another id revoked');
  list.add(id, 2_000);
  t.equal(list.has(id), true, 'revoked now');
  t.equal(list.has(id), true);
});

t.test('a purged revocation is forgotten at once, and the others stay', async (t) => {
  const list = new RevocationList();
  list.add('early', 1_000);
  list.add('late', 5_000);
  t.equal(list.has('early'), true);
  list.purge(1_000);
  t.equal(list.has('early'), false, 'its token has expired: forgotten');
  t.equal(list.has('late'), true);
  t.equal(list.size, 1);
});
