import fs from 'node:fs';
import path from 'node:path';
import { PROJECT } from './lib/products.js';
import { replaceSection } from './lib/docs-section.js';
import { resultsSection } from './lib/report.js';
import { resultCharts } from './lib/result-charts.js';
import type { BenchResults } from './lib/results.js';

/**
 * `npm run bench:docs [RESULTS.json]`: puts one run of `npm run bench` (default bench/results/latest.json)
 * into docs/performance.md: the section between the `bench:results` markers is rewritten from the JSON, the
 * charts are written to docs/img/, and the JSON itself is kept as bench/results/docs.json (committed, so the
 * page's figures can be traced to the run).
 */
function main(): void {
  const source = path.resolve(process.argv[2] ?? path.join(PROJECT, 'bench/results/latest.json'));
  const results = JSON.parse(fs.readFileSync(source, 'utf8')) as BenchResults;
  if (results.version !== 2) throw new Error(`${source}: not a results file of this bench (version ${String(results.version)})`);
  const img = path.join(PROJECT, 'docs/img');
  fs.mkdirSync(img, { recursive: true });
  for (const old of fs.readdirSync(img)) if (/^bench-(rps|cpu)-t\d+\.svg$/.test(old)) fs.rmSync(path.join(img, old));
  for (const [name, svg] of Object.entries(resultCharts(results))) fs.writeFileSync(path.join(img, name), svg);
  const page = path.join(PROJECT, 'docs/performance.md');
  fs.writeFileSync(page, replaceSection(fs.readFileSync(page, 'utf8'), resultsSection(results, 'img')));
  const kept = path.join(PROJECT, 'bench/results/docs.json');
  if (path.resolve(kept) !== source) fs.copyFileSync(source, kept);
  process.stdout.write(`docs/performance.md and docs/img/bench-*.svg from ${path.relative(PROJECT, source)} (${results.at}${results.quick ? ', a smoke run' : ''}); kept as bench/results/docs.json\n`);
}

main();
