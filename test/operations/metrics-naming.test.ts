import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';
import { ROOT } from '../fixtures/sluice-process.js';

interface Family { readonly type: string; readonly samples: { name: string; labels: Record<string, string>; value: number }[] }

/** The Prometheus text format, by family (`# TYPE` lines), with every sample and its labels. */
function families(text: string): Map<string, Family> {
  const out = new Map<string, Family>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1]!, { type: m[2]!, samples: [] });
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const p of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[p[1]!] = p[2]!;
    const fam = out.get(m[1]!) ?? out.get(m[1]!.replace(/_(bucket|sum|count)$/, ''));
    fam?.samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const sum = (f: Family | undefined, where: (l: Record<string, string>) => boolean = () => true): number =>
  (f?.samples ?? []).filter((s) => where(s.labels)).reduce((a, s) => a + s.value, 0);

async function scrapedNode(t: Parameters<Parameters<typeof t.test>[1]>[0]) {
  const backend = await echoBackend(t);
  const s = await startSluice(t, {}, {
    [`${API_DIR}/metered.toml`]: apiToml({ name: 'Metered', context: '/metered', production: `${backend.url}/m`, verbs: ['GET', 'POST'] }),
    [`${API_DIR}/blocked.toml`]: apiToml({ name: 'Blocked', context: '/blocked', production: backend.url, state: 'BLOCKED', verbs: ['GET'] }),
    [`${API_DIR}/dead.toml`]: apiToml({ name: 'Dead', context: '/dead', production: 'http://127.0.0.1:1/x', verbs: ['GET'] }),
  });
  for (let i = 0; i < 3; i++) await request(s.url('/metered/1.0.0/a'));
  await request(s.url('/metered/1.0.0/b'), { method: 'POST', body: 'x'.repeat(1000) });
  await request(s.url('/nowhere'));
  await request(s.url('/blocked/1.0.0/x'));
  await request(s.url('/dead/1.0.0/x'));
  const text = (await request(`http://127.0.0.1:${s.home.ports.servletHttp}/metrics`)).text;
  return { text, fam: families(text) };
}

t.test('metric names follow Prometheus\' rules: counters end in _total, gauges never do, standard metrics unprefixed', async (t) => {
  const { text, fam } = await scrapedNode(t);
  t.ok(fam.size > 30, `${fam.size} families`);
  for (const [name, f] of fam) {
    if (f.type === 'counter') t.match(name, /_total$/, `counter ${name} ends in _total`);
    else t.notMatch(name, /_total$/, `${f.type} ${name} does not end in _total`);
    t.match(name, /^(sluice|process|nodejs)_[a-z0-9_]+$/, `${name}: snake case, one of three prefixes`);
    if (/duration|latency|lag/.test(name) && !/utilization/.test(name)) t.match(name, /_seconds$/, `${name} says its unit`);
  }
  t.notMatch(text, /^sluice_(process|nodejs)_/m, 'the standard metrics are not prefixed');
  for (const std of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_open_fds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_gc_duration_seconds', 'nodejs_active_handles']) {
    t.ok(fam.has(std), `${std} is there`);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const info = fam.get('sluice_build_info')!;
  t.equal(info.type, 'gauge');
  t.same(info.samples.map((x) => [x.labels['version'], x.labels['node'], x.value]), [[pkg.version, process.versions.node, 1]]);
  t.equal(info.samples[0]!.labels['llhttp'], process.versions.llhttp, 'the llhttp version');
});

t.test('status and error code are separate labels; the totals sum without double counting', async (t) => {
  const { fam } = await scrapedNode(t);
  const req = fam.get('sluice_gateway_requests_total')!;
  const faults = fam.get('sluice_gateway_faults_total')!;
  t.equal(sum(req), 7, 'every call counted once');
  t.equal(sum(req, (l) => l['code'] !== ''), 3, 'three calls ended with an error code');
  t.equal(sum(faults), sum(req, (l) => l['code'] !== ''), 'sum(faults_total) = the calls with a code');
  t.same([...new Set(faults.samples.map((x) => x.labels['kind']))].sort(), ['other', 'rejected']);
  t.equal(sum(faults, (l) => l['kind'] === 'rejected'), 2, 'no API and a blocked API: rejected before any backend');
  t.ok(req.samples.every((x) => /^\d{3}$/.test(x.labels['status']!)), 'status is always an HTTP status');
  t.ok(req.samples.every((x) => x.labels['code'] === '' || /^\d+$/.test(x.labels['code']!)), 'code is an error code or empty');
  for (const old of ['sluice_gateway_rejected_total', 'sluice_gateway_throttled_total']) t.notOk(fam.has(old), `${old} is gone (faults_total{kind})`);
  t.equal(sum(fam.get('sluice_gateway_request_bytes_total'), (l) => l['api'] === 'Metered'), 1000, 'request body bytes');
  t.ok(sum(fam.get('sluice_gateway_response_bytes_total'), (l) => l['api'] === 'Metered') > 0, 'response body bytes');
});

t.test('per io thread: event loop utilisation and lag; restarts; labels hold no internal key', async (t) => {
  const { fam } = await scrapedNode(t);
  const elu = fam.get('sluice_io_thread_eventloop_utilization')!;
  t.same(elu.samples.map((x) => x.labels['thread']), ['0'], 'one io thread, one series');
  t.ok(elu.samples[0]!.value >= 0 && elu.samples[0]!.value <= 1, `utilisation ${elu.samples[0]!.value} in 0..1`);
  for (const n of ['sluice_io_thread_eventloop_lag_seconds', 'sluice_io_thread_eventloop_lag_p99_seconds', 'sluice_io_thread_eventloop_lag_max_seconds']) {
    const f = fam.get(n)!;
    t.equal(f.type, 'gauge');
    t.ok(f.samples.length === 1 && f.samples[0]!.value >= 0 && f.samples[0]!.value < 10, `${n} = ${f.samples[0]?.value}`);
  }
  t.equal(sum(fam.get('sluice_io_thread_restarts_total')), 0);
  for (const f of fam.values()) {
    for (const x of f.samples) {
      for (const [k, v] of Object.entries(x.labels)) {
        t.notMatch(v, / via |\+ca$|\s/, `${x.name}{${k}="${v}"}: no pool key or blank in a label`);
        if (k === 'backend') t.match(v, /^https?:\/\/[^/\s]+:\d+$/, 'a backend is its origin');
      }
    }
  }
});

/** Metric names an expression uses (PromQL in the dashboard, the alert rules). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:sluice|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

t.test('every metric the Grafana dashboard and the Prometheus alert rules in docs/ name exists on a running node', async (t) => {
  const { fam } = await scrapedNode(t);
  const exists = (n: string): boolean => fam.has(n) || fam.has(n.replace(/_(bucket|sum|count)$/, ''));
  const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[]; templating: { list: { query?: unknown }[] } };
  const dashNames = new Set<string>();
  for (const p of dashboard.panels) for (const tg of p.targets) for (const n of metricNames(tg.expr)) dashNames.add(n);
  for (const v of dashboard.templating.list) if (typeof v.query === 'string') for (const n of metricNames(v.query)) dashNames.add(n);
  t.ok(dashNames.size >= 15, `the dashboard names ${dashNames.size} metrics`);
  for (const n of dashNames) t.ok(exists(n), `dashboard: ${n} exists`);

  const rules = parseYaml(fs.readFileSync(path.join(ROOT, 'docs/prometheus-alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
  const alerts = rules.groups.flatMap((g) => g.rules);
  const want = ['SluiceHighErrorRate', 'SluiceHighLatencyP99', 'SluiceThrottlingHigh', 'SluiceWorkerPoolBlocked', 'SluiceIoThreadRestarted'];
  for (const a of want) t.ok(alerts.some((r) => r.alert === a), `alert ${a}`);
  for (const r of alerts) {
    const names = metricNames(r.expr);
    t.ok(names.length > 0, `${r.alert} names a metric`);
    for (const n of names) t.ok(exists(n), `${r.alert}: ${n} exists`);
  }
});
