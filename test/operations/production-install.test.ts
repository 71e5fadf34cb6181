// A production install is `npm ci --omit=dev` beside a built dist/ (README.md, Production): what the runtime
// imports must all be dependencies, the package must carry what a node needs, and the prepare step must never
// fail an install that has no TypeScript compiler.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinModules } from 'node:module';
import t from 'tap';
import { ROOT, requireBuild } from '../fixtures/sluice-process.js';

requireBuild();

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };

function jsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...jsFiles(p));
    else if (e.name.endsWith('.js')) out.push(p);
  }
  return out;
}

t.test('everything the runtime imports is a dependency, pinned exactly (not a dev dependency npm ci --omit=dev leaves out)', async (t) => {
  const builtins = new Set(builtinModules);
  const seen = new Set<string>();
  for (const dir of ['conf', 'transport', 'mediation', 'engine']) {
    for (const f of jsFiles(path.join(ROOT, 'dist', dir))) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:^\s*(?:import|export)\b[^'"\n]*\bfrom\s*|\bimport\s*\(\s*|\brequire(?:\.resolve)?\(\s*)['"]([^'".][^'"]*)['"]/gm)) {
        const spec = m[1]!;
        if (!/^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]*)?$/.test(spec)) continue;
        if (spec.startsWith('node:') || builtins.has(spec.split('/')[0]!)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (seen.has(name)) continue;
        seen.add(name);
        t.ok(pkg.dependencies[name], `${name} (imported by ${path.relative(ROOT, f)}) is in dependencies`);
      }
    }
  }
  t.ok(seen.has('node-unix-socket') && seen.has('pino') && seen.has('yaml'), `the scan found the runtime's packages (${[...seen].join(', ')})`);
  for (const [name, version] of Object.entries(pkg.dependencies)) {
    t.match(version, /^(npm:(@[\w.-]+\/)?[\w.-]+@)?\d+\.\d+\.\d+(-[\w.]+)?$/, `${name} is pinned exactly (${version})`);
  }
  t.equal(pkg.scripts['prepare'], 'node bin/prepare.js', 'prepare does not call tsc directly (a dev dependency)');
});

t.test('the npm pack tarball holds the CLI, the compiled code, the default home and the docs, and no runtime data or tests', async (t) => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  for (const want of ['bin/sluice.js', 'bin/prepare.js', 'dist/engine/cli/main.js', 'home/repository/conf/deployment.toml', 'docs/sluice.service', 'docs/grafana-dashboard.json', 'docs/prometheus-alerts.yml', 'README.md', 'package.json']) {
    t.ok(files.includes(want), `${want} is packed`);
  }
  for (const f of files) {
    t.notMatch(f, /^(test|\.ci|node_modules)\/|home\/repository\/(database|logs)\/|\.pid$|generated/, `${f} belongs in the package`);
  }
});

t.test('prepare without a TypeScript compiler (npm ci --omit=dev) never fails the install and says what to do', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-prod-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(path.join(ROOT, 'bin/prepare.js'), path.join(dir, 'bin/prepare.js'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  const none = spawnSync(process.execPath, ['bin/prepare.js'], { cwd: dir, encoding: 'utf8' });
  t.equal(none.status, 0);
  t.match(none.stdout, /no TypeScript compiler here \(npm ci --omit=dev\) and no dist\/: build it .* npm pack tarball/);
  fs.mkdirSync(path.join(dir, 'dist/engine/cli'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'dist/engine/cli/main.js'), '');
  const prebuilt = spawnSync(process.execPath, ['bin/prepare.js'], { cwd: dir, encoding: 'utf8' });
  t.equal(prebuilt.status, 0);
  t.match(prebuilt.stdout, /using the dist\/ that is present/);
  // Where the compiler is (this checkout, built by npm test): nothing to do.
  const here = spawnSync(process.execPath, ['bin/prepare.js'], { cwd: ROOT, encoding: 'utf8' });
  t.equal(here.status, 0);
  t.match(here.stdout, /dist\/ is up to date/);
});

t.test('the systemd unit in docs/ runs the CLI with the home, stops by SIGTERM with time to drain, reloads through the pid file', async (t) => {
  const unit = fs.readFileSync(path.join(ROOT, 'docs/sluice.service'), 'utf8');
  t.match(unit, /^ExecStart=\S*node .*bin\/sluice\.js start --home (\S+)$/m);
  t.match(unit, /^ExecReload=\S*node .*bin\/sluice\.js reload --home /m);
  t.match(unit, /^KillSignal=SIGTERM$/m);
  t.match(unit, /^TimeoutStopSec=\d+/m);
  t.match(unit, /^LimitNOFILE=\d+/m);
  t.match(unit, /repository\/sluice\.pid/, 'it names the pid file sluice stop and reload use');
});
