#!/usr/bin/env node
// The CLI runs from the compiled output; `npm install` builds it (prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const entry = new URL('../dist/engine/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('sluice: the compiled code is missing; run `npm run build` (or `npm install`) first\n');
  process.exit(2);
}
await import(entry.href);
