// npm's prepare step (npm install, npm ci): compiles TypeScript to dist/ when the compiler is installed and
// dist/ is older than the sources. Without the compiler (npm ci --omit=dev, a production install) it never
// fails the install: a dist/ built elsewhere (npm run build, or the npm pack tarball) is used as it is, and
// without one it says in one line how to get it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist/engine/cli/main.js');
const SOURCES = ['conf', 'transport', 'mediation', 'engine', 'bench'];

function newestSource(dir, newest = 0) {
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return newest; }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = newestSource(p, newest);
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

let tsc;
try { tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc'); } catch { tsc = null; }
const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;

if (tsc === null) {
  if (built) process.stdout.write('sluice: no TypeScript compiler here (a production install): using the dist/ that is present\n');
  else process.stdout.write('sluice: no TypeScript compiler here (npm ci --omit=dev) and no dist/: build it where the dev dependencies are (npm ci && npm run build) and copy dist/, or install from the npm pack tarball, which holds it (README.md, Production)\n');
  process.exit(0);
}
const sources = SOURCES.reduce((n, d) => newestSource(path.join(root, d), n), 0);
if (built && built >= sources) {
  process.stdout.write('sluice: dist/ is up to date\n');
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
