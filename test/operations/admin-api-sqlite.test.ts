import t from 'tap';
import { adminApiFlow } from './helpers/admin-flow.js';

t.test('admin API end to end on the embedded store (SQLite), persisted across a restart', async (t) => {
  await adminApiFlow(t);
});
