// docs/configuration.md cannot drift from the code: every key of conf/catalog/sluice.ts has a row in its table
// of Sluice's own keys, with the catalog's type and default; every row names a key that exists; every runtime
// placeholder of conf/placeholders.ts is documented.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SLUICE_KEYS } from '../../conf/catalog/sluice.js';
import type { KeySpec } from '../../conf/catalog/types.js';
import { RUNTIME_PLACEHOLDERS } from '../../conf/placeholders.js';
import { ROOT } from './fixtures/helpers.js';

const DOC = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');

/** Rows of the Sluice keys table: | `[section]` (or `[[section]]`) | `key` | type | default | what it does |. */
const ROW = /^\|\s*`(\[\[?)([^\]`]+)\]\]?`\s*\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|\s*$/gm;
const rows = new Map<string, { type: string; default: string; what: string }>();
for (const m of DOC.matchAll(ROW)) rows.set(`${m[2]}${m[1] === '[[' ? '[]' : ''}.${m[3]}`, { type: m[4]!.trim(), default: m[5]!.trim(), what: m[6]!.trim() });

/** How the table writes a key's type and default. */
function typeCell(s: KeySpec): string {
  return s.allowed ? `${s.type}: ${s.allowed.join(', ')}` : s.type;
}
function defaultCell(s: KeySpec): string {
  if (s.computedDefault === 'cpu_cores') return 'number of cores';
  if (s.default === undefined) return '—';
  if (s.type === 'duration') return `${String(s.default)} ms`;
  return `\`${JSON.stringify(s.default)}\``;
}

t.test("every Sluice key is documented, with its type and default", async (t) => {
  for (const s of SLUICE_KEYS as readonly KeySpec[]) {
    const row = rows.get(s.path);
    if (!t.ok(row, `${s.path} has a row in docs/configuration.md`)) continue;
    t.equal(row!.type, typeCell(s), `${s.path}: type`);
    t.equal(row!.default, defaultCell(s), `${s.path}: default`);
    t.ok(row!.what.length > 0, `${s.path}: says what it does`);
  }
});

t.test('every row names a Sluice key', async (t) => {
  const known = new Set((SLUICE_KEYS as readonly KeySpec[]).map((s) => s.path));
  for (const p of rows.keys()) t.ok(known.has(p), `${p} is in conf/catalog/sluice.ts`);
});

t.test('every runtime placeholder is documented', async (t) => {
  for (const name of Object.keys(RUNTIME_PLACEHOLDERS)) t.match(DOC, `| \`\${${name}}\` |`, `\${${name}}`);
});
