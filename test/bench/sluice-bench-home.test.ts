import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { sluiceBenchFiles } from '../../bench/peers/sluice.js';
import { cli } from '../cli/helpers.js';
import { ROOT, requireBuild } from '../fixtures/sluice-process.js';

requireBuild();

t.test('the files npm run bench adds to a home pass sluice check-config: the bench breaks here, not after a build and ten minutes', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-home-test-'));
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  fs.cpSync(path.join(ROOT, 'home'), home, { recursive: true, filter: (p) => !/repository\/(database|logs)(\/|$)|resources\/security\/(?!README)/.test(p) });
  const files = sluiceBenchFiles('http://127.0.0.1:18990', 'http://127.0.0.1:18989');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  }
  const r = await cli(['check-config', '--home', home]);
  t.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  t.match(files['repository/deployment/server/policies/bench.toml'], /name = "BenchGold"\nrequests = 1000000000\n/, 'a real subscription policy, with a limit the bench never reaches');
  t.match(files['repository/deployment/server/applications/bench-app.toml'], /api = "BenchThrottled:1\.0\.0"\nthrottling_policy = "BenchGold"/);
});
