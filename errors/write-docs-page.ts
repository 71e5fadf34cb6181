import fs from 'node:fs';
import path from 'node:path';
import { errorsPage } from './docs-page.js';

/** `npm run docs:errors`: writes docs/errors.md from the catalogue (run from the project's root). */
const target = path.resolve(process.argv[2] ?? 'docs/errors.md');
fs.writeFileSync(target, errorsPage());
console.log(`wrote ${target}`);
