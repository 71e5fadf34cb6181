#!/usr/bin/env -S node --max-semi-space-size=4
// The CLI runs from the compiled output; `npm install` builds it (prepare script).
// --max-semi-space-size=4: the main thread's young generation stays at 8 MiB instead of growing to 32 MiB under
// load (its garbage is short-lived: telemetry batches, log lines); `node bin/sluice.js` should pass it too
// (docs/tuning.md, memory).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const entry = new URL('../dist/engine/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('sluice: the compiled code is missing; run `npm run build` (or `npm install`) first\n');
  process.exit(2);
}
await import(entry.href);
