import t from 'tap';
import { XMLValidator } from 'fast-xml-parser';
import { barChart } from '../../bench/lib/chart.js';
import { replaceSection, START, END } from '../../bench/lib/docs-section.js';
import { cpuTable, resultsSection, runLine, targetLines, targetsTable, throughputTable } from '../../bench/lib/report.js';
import { resultCharts } from '../../bench/lib/result-charts.js';
import { medianRound, type BenchResults, type Measurement, type ScenarioId } from '../../bench/lib/results.js';
import { evaluateTargets, type TargetLine } from '../../bench/lib/targets.js';
import type { ProxyId } from '../../bench/peers/peer.js';

function m(scenario: ScenarioId, proxy: ProxyId, threads: number, connections: number, rps: number, o: { p99?: number; non2xx?: number; cpu?: [number, number] } = {}): Measurement {
  return {
    scenario, proxy, threads, connections, cpu: o.cpu ? { userUs: o.cpu[0], kernelUs: o.cpu[1] } : null,
    result: { requestsPerSec: rps, requests: rps * 8, errors: 0, non2xx: o.non2xx ?? 0, throughputMiBps: 1, latencyMs: { p50: 1, p90: 2, p99: o.p99 ?? 5, p999: 9, max: 12 } },
  };
}

function results(measurements: Measurement[], threads = [1, 2]): BenchResults {
  return {
    version: 2, at: '2026-11-25T10:00:00.000Z', command: 'npm run bench', quick: false, durationSec: 8, warmupSec: 2, threads,
    connections: [100, 1000], refConnections: 100, accessLog: true, machine: { cores: '2 × test' }, measurements,
  };
}

const line = (lines: TargetLine[], start: string, threads: number): TargetLine => {
  const l = lines.find((x) => x.target.startsWith(start) && x.threads === threads);
  if (!l) throw new Error(`no target line ${start} t=${threads}`);
  return l;
};

t.test('targets: each a same-run ratio against its threshold, met at the threshold itself', async (t) => {
  const r = results([
    m('get', 'sluice', 1, 100, 27_000), m('get', 'floor', 1, 100, 30_000), m('get', 'sluice', 1, 1000, 1), m('get', 'floor', 1, 1000, 1_000_000),
    m('get-secured', 'sluice', 1, 100, 25_000), m('get-secured', 'haproxy', 1, 100, 12_500), m('get-secured', 'fastify', 1, 100, 10_000),
    m('post-10k', 'sluice', 1, 100, 17_000), m('post-10k', 'nginx', 1, 100, 20_000),
    m('upload-1m', 'sluice', 1, 20, 95), m('upload-1m', 'nginx', 1, 20, 100),
    m('download-1m', 'sluice', 1, 20, 94), m('download-1m', 'nginx', 1, 20, 100),
    m('https-echo', 'sluice', 1, 100, 19_000, { p99: 10 }),
    m('get', 'sluice', 2, 100, 40_000), m('get', 'nginx', 2, 100, 40_001),
    m('https-echo', 'sluice', 2, 100, 30_000, { p99: 10.5 }),
  ]);
  const lines = evaluateTargets(r);
  t.equal(line(lines, 'pass-through ≥ 0.9x the floor', 1).verdict, 'met', '0.9 exactly, at the reference connections (not the 1000-connection row)');
  t.equal(line(lines, 'pass-through ≥ 0.9x the floor', 1).ratio, 0.9);
  t.match(line(lines, 'pass-through ≥ 0.9x the floor', 1).target, /access log on/);
  t.equal(line(lines, 'secured ≥ 0.95x Sluice pass-through', 1).verdict, 'not met', '25 000 / 27 000 = 0.93');
  t.equal(line(lines, 'secured ≥ 1.5x HAProxy', 1).ratio, 2);
  t.equal(line(lines, 'secured ≥ 3x the fastify', 1).verdict, 'not met', '2.5x');
  t.equal(line(lines, 'POST 10 KB', 1).verdict, 'met', '0.85 exactly');
  t.equal(line(lines, '1 MiB up', 1).verdict, 'met', 'the 1 MiB loads run at their own connection count');
  t.equal(line(lines, '1 MiB down', 1).verdict, 'not met');
  t.equal(line(lines, 'HTTPS', 1).verdict, 'met', '5x the reference\'s 3 800 TPS with p99 10 ms');
  t.match(line(lines, 'HTTPS', 1).detail, /load generator shares the 2 cores/);
  t.equal(line(lines, 'HTTPS', 2).verdict, 'not met', 'enough TPS but p99 over 10 ms');
  t.equal(line(lines, '2 io threads', 2).verdict, 'not met', 'a hair under nginx');
  t.notOk(lines.some((l) => l.target.startsWith('2 io threads') && l.threads === 1), 'the 2-thread target only on the 2-thread rows');
  t.equal(line(lines, 'secured ≥ 1.5x HAProxy', 2).verdict, 'n/a', 'not measured is said, not guessed');
  t.match(line(lines, 'secured ≥ 1.5x HAProxy', 2).detail, /not measured/);
  t.match(targetLines(lines), /^met {6}pass-through ≥ 0\.9x the floor \(access log on\), 1 thread: 0\.90x/m);
  // 40 000 / 40 001 rounds to 1.00x: a figure is given with as many digits as it takes not to read as met.
  t.match(targetLines(lines), /^not met {2}2 io threads ≥ 1\.0x nginx with 2 workers, 100 connections, 2 threads: 0\.99998x/m);
  t.match(targetsTable(lines), /\| 2 io threads ≥ 1\.0x nginx with 2 workers, 100 connections \| 2 \| 0\.99998x \| \*\*not met\*\* \|/);
});

t.test('a load\'s figure is its median round, with every round\'s requests/s; its spread shows in the target line', async (t) => {
  const rounds = [m('get-secured', 'sluice', 1, 100, 57_000, { p99: 4 }), m('get-secured', 'sluice', 1, 100, 40_000, { p99: 30 }), m('get-secured', 'sluice', 1, 100, 61_000, { p99: 3 })]
    .map((x, i) => ({ ...x, peakRssMiB: [80, 95, 82][i]! }));
  const secured = medianRound(rounds);
  t.equal(secured.result.requestsPerSec, 57_000, 'the middle one, not the slow round and not the mean');
  t.equal(secured.result.latencyMs.p99, 4, 'its latency is the median round\'s own');
  t.same(secured.rounds, [57_000, 40_000, 61_000], 'every round, in the order they ran');
  t.equal(secured.peakRssMiB, 95, 'the highest peak any round saw');
  t.equal(medianRound([rounds[0]!, rounds[1]!]).result.requestsPerSec, 40_000, 'of two, the lower');
  t.throws(() => medianRound([]));
  const pass = medianRound([60_000, 62_000, 59_000].map((rps) => m('get', 'sluice', 1, 100, rps)));
  const l = line(evaluateTargets(results([secured, pass], [1])), 'secured ≥ 0.95x Sluice pass-through', 1);
  t.equal(l.ratio, 57_000 / 60_000);
  t.match(l.detail, /secured 57 000 \(rounds 40 000-61 000\) \/ pass-through 60 000 \(rounds 59 000-62 000\)/);
});

t.test('the secured target says how much of its ratio is the call\'s bytes and how much the security work', async (t) => {
  const lines = evaluateTargets(results([
    m('get', 'sluice', 1, 100, 70_000), m('get-bytes', 'sluice', 1, 100, 68_600), m('get-secured', 'sluice', 1, 100, 65_170),
    m('get', 'sluice', 2, 100, 80_000), m('get-secured', 'sluice', 2, 100, 76_000), m('get-bytes', 'sluice', 2, 100, 90_000, { non2xx: 1 }),
  ]));
  const one = line(lines, 'secured ≥ 0.95x Sluice pass-through', 1);
  t.equal(one.ratio, 65_170 / 70_000, 'the target\'s ratio is still secured over plain pass-through');
  t.equal(one.verdict, 'not met');
  t.match(one.detail, /of it the call's bytes 0\.98x \(pass-through with them 68 600\) and the security work 0\.95x$/);
  const two = line(lines, 'secured ≥ 0.95x Sluice pass-through', 2);
  t.equal(two.verdict, 'met');
  t.notMatch(two.detail, /bytes/, 'a bytes load with non-2xx answers is left out, not used');
});

t.test('the secured verdict comes from the back-to-back pairs when the run has them, the rounds\' ratio said beside it', async (t) => {
  const plan = [
    m('get', 'sluice', 1, 100, 70_000), m('get-secured', 'sluice', 1, 100, 63_000), m('get-bytes', 'sluice', 1, 100, 68_000),
    m('get', 'sluice', 2, 100, 80_000), m('get-secured', 'sluice', 2, 100, 79_000),
  ];
  // Threads 1: the rounds say 0.90 (a minute apart); the pairs 0.80, 0.97, 0.96, 1.00, 0.95: median 0.96.
  const pairs = [
    { threads: 1, connections: 100, pass: [50_000, 60_000, 50_000, 60_000, 40_000], secured: [40_000, 58_200, 48_000, 60_000, 38_000] },
    // Threads 2: the rounds say 0.99; the pairs 0.90, 0.94, 0.96, 0.92: median 0.93.
    { threads: 2, connections: 100, pass: [50_000, 50_000, 50_000, 50_000], secured: [45_000, 47_000, 48_000, 46_000] },
  ];
  const lines = evaluateTargets({ ...results(plan), securedPairs: pairs });
  const one = line(lines, 'secured ≥ 0.95x Sluice pass-through', 1);
  t.equal(one.ratio, 0.96, 'the median pair, not the rounds\' 0.90 and not the slow first pair');
  t.equal(one.verdict, 'met');
  t.match(one.detail, /^median of 5 back-to-back pairs 0\.960 \(pairs 0\.80-1\.00\); the rounds: secured 63 000 \/ pass-through 70 000 requests\/s = 0\.90x; of it the call's bytes 0\.97x/);
  const two = line(lines, 'secured ≥ 0.95x Sluice pass-through', 2);
  t.ok(Math.abs(two.ratio! - 0.93) < 1e-9, 'an even count: the mean of the middle two');
  t.equal(two.verdict, 'not met', 'the pairs can say no where the rounds said yes');
  const without = line(evaluateTargets(results(plan)), 'secured ≥ 0.95x Sluice pass-through', 1);
  t.equal(without.ratio, 0.9, 'a run without pairs (older results, BENCH_PAIRS=0) keeps the rounds\' ratio');
  t.equal(line(evaluateTargets({ ...results(plan), securedPairs: [{ threads: 1, connections: 100, pass: [], secured: [] }] }), 'secured ≥ 0.95x', 1).ratio, 0.9, 'no pair measured: the rounds');
});

t.test('the POST 10 KB and 2-thread GET verdicts against nginx come from their back-to-back pairs when the run has them', async (t) => {
  const plan = [
    m('post-10k', 'sluice', 1, 100, 20_000), m('post-10k', 'nginx', 1, 100, 25_000),
    m('get', 'sluice', 2, 100, 45_000), m('get', 'nginx', 2, 100, 50_000), m('get', 'sluice', 2, 1000, 1), m('get', 'nginx', 2, 1000, 1),
  ];
  // POST, 1 thread: the rounds say 0.80; the pairs 0.90, 0.84, 0.88: median 0.88.
  // GET, 2 threads: the rounds say 0.90; the pairs at 100 connections 1.02, 0.98, 1.01, 0.99: median 1.00.
  const nginxPairs = [
    { scenario: 'post-10k' as const, threads: 1, connections: 100, sluice: [18_000, 21_000, 22_000], nginx: [20_000, 25_000, 25_000] },
    { scenario: 'get' as const, threads: 2, connections: 100, sluice: [51_000, 49_000, 50_500, 49_500], nginx: [50_000, 50_000, 50_000, 50_000] },
    // Pairs at another connection count are not the target's.
    { scenario: 'get' as const, threads: 2, connections: 1000, sluice: [1], nginx: [1_000_000] },
  ];
  const r = { ...results(plan), nginxPairs };
  const lines = evaluateTargets(r);
  const post = line(lines, 'POST 10 KB', 1);
  t.ok(Math.abs(post.ratio! - 0.88) < 1e-9, 'the median pair, not the rounds\' 0.80');
  t.equal(post.verdict, 'met');
  t.match(post.detail, /^median of 3 back-to-back pairs 0\.880 \(pairs 0\.84-0\.90\); the rounds: Sluice 20 000 \/ nginx 25 000 requests\/s = 0\.80x$/);
  const get = line(lines, '2 io threads', 2);
  t.ok(Math.abs(get.ratio! - 1.0) < 1e-9, 'the mean of the middle two of four pairs');
  t.equal(get.verdict, 'met', 'the threshold itself is met');
  t.match(get.detail, /^median of 4 back-to-back pairs 1\.000 \(pairs 0\.98-1\.02\); the rounds: Sluice 45 000 \/ nginx 50 000 requests\/s = 0\.90x$/);
  t.equal(line(evaluateTargets(results(plan)), 'POST 10 KB', 1).ratio, 0.8, 'a run without pairs keeps the rounds\' ratio');
  t.equal(line(lines, 'POST 10 KB', 2).verdict, 'n/a', 'no pairs and no rounds at 2 threads: nothing is made up');
  t.match(runLine(r), /then 4 back-to-back pairs of Sluice's and nginx's POST 10 KB, of Sluice's and nginx's GET at 2 threads, the order alternating/);
  t.notMatch(runLine(results(plan)), /pairs/, 'a run without pairs says none');
});

t.test('the HTTPS verdict is the warm load\'s, measured after a warm-up as the reference run is; the load with its handshakes is said beside it', async (t) => {
  const lines = evaluateTargets(results([
    m('https-echo-warm', 'sluice', 1, 100, 30_000, { p99: 6.2 }), m('https-echo', 'sluice', 1, 100, 28_000, { p99: 10.6 }),
    m('https-echo-warm', 'sluice', 2, 100, 30_000, { p99: 10.2 }), m('https-echo', 'sluice', 2, 100, 30_000, { p99: 7 }),
  ]));
  const one = line(lines, 'HTTPS', 1);
  t.equal(one.verdict, 'met', 'the warm p99 is within 10 ms');
  t.equal(one.ratio, 30_000 / 3800);
  t.match(one.detail, /^after a warm-up on the same connections \(h2load\): 30 000 TPS, p99 6\.2 ms, against 3 800 TPS, p99 76 ms \(.*measured after its warm-up.*\); with each round's 100 TLS handshakes in the time measured \(wrk\): 28 000 TPS, p99 10\.6 ms$/);
  t.equal(line(lines, 'HTTPS', 2).verdict, 'not met', 'the warm load decides, also when the other met the target');
  const dirty = line(evaluateTargets(results([m('https-echo-warm', 'sluice', 1, 100, 30_000, { non2xx: 2 }), m('https-echo', 'sluice', 1, 100, 30_000)], [1])), 'HTTPS', 1);
  t.equal(dirty.verdict, 'n/a', 'a warm load with non-2xx answers gives no verdict, whatever the other load did');
});

t.test('a load that saw errors or non-2xx answers gives no ratio', async (t) => {
  const lines = evaluateTargets(results([
    m('get-secured', 'sluice', 1, 100, 90_000, { non2xx: 3 }), m('get-secured', 'haproxy', 1, 100, 10_000),
    m('https-echo', 'sluice', 1, 100, 90_000, { non2xx: 1 }),
  ], [1]));
  const l = line(lines, 'secured ≥ 1.5x HAProxy', 1);
  t.equal(l.verdict, 'n/a');
  t.equal(l.ratio, null);
  t.match(l.detail, /3 non-2xx/);
  t.equal(line(lines, 'HTTPS', 1).verdict, 'n/a');
  t.match(throughputTable(results([m('get', 'sluice', 1, 100, 5, { non2xx: 3 })], [1])), /⚠ 0 errors, 3 non-2xx/, 'the table marks it');
});

t.test('tables: a row per thread count, scenario and connections, a column per proxy, Sluice\'s ratios', async (t) => {
  const r = results([
    m('get', 'nginx', 1, 100, 40_000, { cpu: [3, 12] }), m('get', 'sluice', 1, 100, 30_000, { p99: 7.25, cpu: [12.5, 15.5] }),
    m('get', 'floor', 1, 1000, 1000), m('get-secured', 'haproxy', 1, 100, 10_000, { cpu: [40, 20] }),
  ], [1]);
  const tp = throughputTable(r).split('\n');
  t.equal(tp.length, 2 + 3, 'head, rule, three rows');
  const cols = tp[0]!.split('|').length;
  t.ok(tp.every((l) => l.split('|').length === cols), 'every row has every column');
  t.match(tp[2], /^\| GET small, pass-through \| 1 \| 100 \|  \| 40 000 \(5\.00\) \|  \|  \|  \| 30 000 \(7\.25\) \| 0\.75 \|/);
  t.match(tp[3], /\| 1 \| 1000 \|/);
  t.match(tp[4], /^\| GET small, secured/);
  const cpu = cpuTable(r);
  t.match(cpu, /\| 15\.0 \(3\.0 \+ 12\.0\) \|  \|  \|  \| 28\.0 \(12\.5 \+ 15\.5\) \|/);
  t.match(cpu, /60\.0 \(40\.0 \+ 20\.0\)/);
  const section = resultsSection(r, 'img');
  t.match(section, /!\[requests\/s, 1 thread\]\(img\/bench-rps-t1\.svg\)/);
  t.match(section, /!\[CPU µs per call, 1 thread\]\(img\/bench-cpu-t1\.svg\)/);
  t.match(section, /`npm run bench`, 2026-11-25T10:00:00\.000Z/);
  t.notMatch(section, /smoke run/);
  t.match(resultsSection({ ...r, quick: true }, 'img'), /a smoke run/, 'a smoke run says it is one');
});

t.test('charts: valid SVG, bars scaled within each scenario, stacked segments, text escaped', async (t) => {
  const svg = barChart({
    title: 'a <b> & "c"', series: [{ name: 'sluice', color: '#1f77b4' }], segmentNames: ['user', 'kernel'],
    groups: [
      { label: 'small', bars: [{ series: 'sluice', segments: [10, 30], text: '40' }, { series: 'nginx', segments: [5, 15], text: '20' }] },
      { label: '1 MiB', bars: [{ series: 'sluice', segments: [1000], text: '1000' }] },
    ],
  });
  t.equal(XMLValidator.validate(svg), true, 'well-formed XML');
  t.match(svg, /a &lt;b&gt; &amp; &quot;c&quot;/);
  const widths = [...svg.matchAll(/<rect x="[\d.]+" y="\d+" width="([\d.]+)" height="12"/g)].map((x) => Number(x[1]));
  t.same(widths, [105, 315, 52.5, 157.5, 420], 'each group\'s largest bar spans the plot; segments in proportion');
  t.match(svg, /fill="#999"/, 'a series without a colour is grey');

  const r = results([m('get', 'sluice', 1, 100, 30_000, { cpu: [10, 15] }), m('get', 'nginx', 2, 100, 40_000, { cpu: [3, 12] })]);
  const files = resultCharts(r);
  t.same(Object.keys(files).sort(), ['bench-cpu-t1.svg', 'bench-cpu-t2.svg', 'bench-rps-t1.svg', 'bench-rps-t2.svg']);
  for (const [name, s] of Object.entries(files)) t.equal(XMLValidator.validate(s), true, name);
  t.match(files['bench-rps-t1.svg'], /sluice 30 000 \(5\.0 ms\)/);
  t.match(files['bench-cpu-t2.svg'], /nginx 15\.0 µs/);
  t.match(resultCharts({ ...r, quick: true })['bench-rps-t1.svg'], /SMOKE RUN/);
});

t.test('the docs section is replaced between its markers, and only there', async (t) => {
  const page = `# Performance\n\nbefore\n\n${START}\nold figures\n${END}\n\nafter\n`;
  const once = replaceSection(page, 'new figures');
  t.equal(once, `# Performance\n\nbefore\n\n${START}\nnew figures\n${END}\n\nafter\n`);
  t.equal(replaceSection(once, 'new figures'), once, 'running it twice changes nothing');
  t.throws(() => replaceSection('# Performance\n', 'x'), /has no/);
  t.throws(() => replaceSection(`${END}\n${START}\n`, 'x'), /has no/, 'markers out of order');
});
