// docs/errors.md is written from the catalogue (npm run docs:errors): a page that says something else than the
// codes the gateway sends is a defect, so a stale page fails here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { errorsPage } from '../../errors/docs-page.js';
import { ALL_ERRORS } from '../../errors/catalogue.js';

const PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/errors.md');

t.test('docs/errors.md is the page the catalogue writes (run npm run docs:errors after changing errors/)', async (t) => {
  t.equal(fs.readFileSync(PAGE, 'utf8'), errorsPage());
});

t.test('the page names every error of the catalogue with its code and status', async (t) => {
  const page = errorsPage();
  for (const e of ALL_ERRORS) {
    t.match(page, new RegExp(`\\| ${e.code} \\| ${e.name} \\|[^\\n]*\\| ${e.status} \\|`), `${e.name} is in a table row`);
  }
});
