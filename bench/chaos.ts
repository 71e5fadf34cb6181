/**
 * The chaos run: every fault of issue 16 (docs/soak.md, "Chaos") replayed against real Sluice processes
 * under load, one after the other, then a PASS/FAIL table; plus the two scale-out figures (a limit shared by
 * two gateways through Redis; revocation time to every gateway-worker with Redis up and down).
 *
 *   npm run chaos                        # every fault, CHAOS_SECONDS (30) of load each: about 5 minutes
 *   CHAOS_ONLY=postgres,drain npm run chaos
 *   CHAOS_SECONDS=60 npm run chaos
 *
 * Needs PostgreSQL (initdb, pg_ctl), redis-server and openssl; the full disk mounts a tmpfs when it may
 * (root), else lowers the node's file size limit. Writes bench/results/chaos-<time>.json. Exit code 1 when a
 * fault failed.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { PROJECT, cleanupAll, portFree, startSluice, stopTracked, tmpDir, benchApiToml, type SluiceHandle } from './lib/products.js';
import { startPgCluster, startRedisServer } from './lib/chaos-services.js';
import { selfSignedCertificate } from './lib/certificate.js';
import { basic, send, sleep, until, type Answer } from './lib/http-client.js';
import { smallDisk } from './lib/small-disk.js';

const SECONDS = Number(process.env['CHAOS_SECONDS'] ?? 30);
const ONLY = process.env['CHAOS_ONLY']?.split(',').map((s) => s.trim()).filter(Boolean) ?? null;

interface Outcome {
  readonly name: string;
  readonly pass: boolean;
  /** What was measured, one line. */
  readonly figures: string;
  /** Why it failed (empty on a pass). */
  readonly reasons: readonly string[];
  readonly data?: Record<string, unknown>;
}

// ------------------------------------------------------------------------------------------ fixtures

const ADMIN = { super_admin: { username: 'admin', password: 'admin', create_admin_account: true } };
const JSON_LOG = { sluice: { log: { console: false, level: 'info', format: 'json' } } };
const APPS = 'repository/deployment/server/applications';
const APIS = 'repository/deployment/server/apis';
const POLICIES = 'repository/deployment/server/policies';

const APP = `name = "ChaosApp"
owner = "admin"
throttling_policy = "Unlimited"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "chaos-client"
client_secret = "chaos-secret"
grant_types = ["client_credentials", "password", "refresh_token"]
[[subscriptions]]
api = "ChaosSecure:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
`;
const CLIENT = basic('chaos-client', 'chaos-secret');

/** A small backend in this process: `/slow` answers after 2 s, everything else at once (Content-Length). */
async function startBackend(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    const answer = (): void => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }); res.end('{"ok":true}'); };
    if (req.url!.includes('/slow')) setTimeout(answer, 2000); else answer();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, close: () => { server.closeAllConnections(); server.close(); } };
}

function logRecords(node: SluiceHandle): Record<string, unknown>[] {
  const f = path.join(node.home, 'repository/logs/sluice.log');
  if (!fs.existsSync(f)) return [];
  return fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const alive = (node: SluiceHandle): boolean => node.proc.exitCode === null && node.proc.signalCode === null;
const tokenUrl = (node: SluiceHandle): string => `https://127.0.0.1:${node.servletHttps}/oauth2/token`;
const readyUrl = (node: SluiceHandle): string => `https://127.0.0.1:${node.servletHttps}/health/ready`;
const token = (node: SluiceHandle, form: Record<string, string> = { grant_type: 'client_credentials' }): Promise<Answer> => send(tokenUrl(node), { form, headers: { authorization: CLIENT } });

/** Counts answers by "status error". */
class Tally {
  readonly counts: Record<string, number> = {};
  total = 0;
  add(a: Answer): void {
    const k = a.status === 200 ? '200' : `${a.status} ${a.json?.error ?? a.error ?? ''}`.trim();
    this.counts[k] = (this.counts[k] ?? 0) + 1;
    this.total++;
  }
  get(k: string): number { return this.counts[k] ?? 0; }
  /** Keys outside the allowed ones. */
  others(allowed: readonly string[]): string[] { return Object.keys(this.counts).filter((k) => !allowed.includes(k)); }
}

/** Samples /health/ready every 250 ms: whether it was seen DOWN. */
function readinessSampler(node: SluiceHandle): { downSeen: () => boolean; stop(): void } {
  let down = false;
  let on = true;
  void (async () => { while (on) { const r = await send(readyUrl(node), { timeoutMs: 5000 }); if (r.status === 503) down = true; await sleep(250); } })();
  return { downSeen: () => down, stop: () => { on = false; } };
}

// --------------------------------------------------------------------------------------------- faults

/** 1. PostgreSQL sessions terminated, then the server crashed, under token and refresh load. */
async function postgresLoss(): Promise<Outcome> {
  const pg = await startPgCluster(15447, 'apim_db');
  const node = await startSluice({ offset: 900, ioThreads: 1, files: { [`${APPS}/chaos.toml`]: APP }, conf: {
    ...ADMIN, ...JSON_LOG, database: { apim_db: { type: 'postgre', url: pg.url, pool_options: { maxActive: 8, maxWait: 2000 } } },
  } });
  const tally = new Tally();
  let stop = false;
  const loops = Array.from({ length: 16 }, async () => {
    while (!stop) {
      const a = await token(node, { grant_type: 'password', username: 'admin', password: 'admin' });
      tally.add(a);
      let rt: string | undefined = a.json?.refresh_token;
      for (let j = 0; j < 5 && rt && !stop; j++) { const r = await token(node, { grant_type: 'refresh_token', refresh_token: rt }); tally.add(r); rt = r.json?.refresh_token; }
      if (a.status !== 200) await sleep(50);
    }
  });
  const ready = readinessSampler(node);
  const t0 = Date.now();
  let kills = 0;
  while (Date.now() - t0 < SECONDS * 500 && alive(node)) {
    await sleep(500);
    kills += Number((await pg.query("SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'sluice'"))[0]!['n']);
  }
  pg.crash();
  await sleep(5000);
  const downSeen = ready.downSeen();
  pg.start();
  const back = Date.now();
  const served = await until(async () => (await token(node)).status === 200, 15_000, 200);
  const backMs = Date.now() - back;
  while (Date.now() - t0 < SECONDS * 1000) await sleep(200);
  stop = true;
  await Promise.all(loops);
  const readyAgain = await until(async () => (await send(readyUrl(node))).status === 200, 10_000, 200);
  ready.stop();
  const reasons: string[] = [];
  if (!alive(node)) reasons.push(`the node died (exit ${node.proc.exitCode ?? node.proc.signalCode})`);
  const odd = tally.others(['200', '503 temporarily_unavailable', '400 invalid_grant']);
  if (odd.length) reasons.push(`answers other than 200 / 503 temporarily_unavailable: ${odd.map((k) => `${k} x${tally.get(k)}`).join(', ')}`);
  if (!served) reasons.push('tokens not served again within 15 s of PostgreSQL\'s return');
  if (!downSeen) reasons.push('/health/ready never DOWN while PostgreSQL was down');
  if (!readyAgain) reasons.push('/health/ready not UP again');
  await stopTracked(node.proc);
  return {
    name: 'PostgreSQL connection loss', pass: reasons.length === 0, reasons,
    figures: `${kills} sessions killed + 1 crash (5 s) under ${tally.total} token calls: ${tally.get('200')} x 200, ${tally.get('503 temporarily_unavailable')} x 503; tokens again ${backMs} ms after the restart`,
    data: { kills, counts: tally.counts, backMs },
  };
}

/** 2. Another API's file rewritten every 300 ms while 30 clients call a secured API with fresh tokens. */
async function redeploy(): Promise<Outcome> {
  const be = await startBackend();
  const other = (k: number): string => benchApiToml({ name: 'OtherAPI', context: '/other', backend: `${be.url}/v${k % 2}` });
  const node = await startSluice({ offset: 910, ioThreads: 1, conf: { ...ADMIN, ...JSON_LOG }, files: {
    [`${APPS}/chaos.toml`]: APP,
    [`${APIS}/secure.toml`]: benchApiToml({ name: 'ChaosSecure', context: '/secure', backend: be.url, auth: 'Application & Application User' }),
    [`${APIS}/other.toml`]: other(0),
  } });
  const tokens: string[] = [];
  while (tokens.length < 2000) for (const r of await Promise.all(Array.from({ length: 20 }, () => token(node)))) if (r.status === 200) tokens.push(r.json.access_token);
  const file = path.join(node.home, APIS, 'other.toml');
  let k = 0;
  const rewrite = setInterval(() => { k++; fs.writeFileSync(`${file}.tmp`, other(k)); fs.renameSync(`${file}.tmp`, file); }, 300);
  const tally = new Tally();
  const end = Date.now() + SECONDS * 1000;
  let next = 0;
  await Promise.all(Array.from({ length: 30 }, async () => {
    while (Date.now() < end) tally.add(await send(`http://127.0.0.1:${node.http}/secure/1.0.0/x`, { headers: { authorization: `Bearer ${tokens[next++ % tokens.length]}` } }));
  }));
  clearInterval(rewrite);
  await sleep(500);
  const deployed = logRecords(node).filter((l) => /API deployed: OtherAPI/.test(String(l['msg']))).length;
  const reasons: string[] = [];
  if (tally.get('200') !== tally.total) reasons.push(`failed calls: ${JSON.stringify(tally.counts)}`);
  if (deployed < 5) reasons.push(`only ${deployed} redeployments applied`);
  await stopTracked(node.proc);
  be.close();
  return {
    name: 'Redeploy during calls', pass: reasons.length === 0, reasons,
    figures: `${tally.total} calls (first ${Math.min(tally.total, tokens.length)} with fresh tokens) during ${deployed} redeployments of another API: ${tally.get('200')} x 200`,
    data: { counts: tally.counts, deployed, rewrites: k },
  };
}

/** 3. SIGTERM under keep-alive load with a 2 s call in flight; graceful_stop_timeout 30 s. */
async function drain(): Promise<Outcome> {
  const be = await startBackend();
  const node = await startSluice({ offset: 920, ioThreads: 1, conf: { ...ADMIN, passthru_http: { graceful_stop_timeout: '30s' } }, files: {
    [`${APIS}/drain.toml`]: benchApiToml({ name: 'Drain', context: '/drain', backend: be.url }),
  } });
  // autocannon ignores Connection: close: it keeps a connection until the gateway closes it.
  const load = autocannon({ url: `http://127.0.0.1:${node.http}/drain/1.0.0/x`, connections: 64, duration: Math.max(12, SECONDS / 2), pipelining: 1 }, () => {});
  await sleep(5000);
  const slow = send(`http://127.0.0.1:${node.http}/drain/1.0.0/slow`);
  await sleep(300);
  const t0 = Date.now();
  const exited = new Promise<number | null>((r) => node.proc.once('exit', (code) => r(code)));
  process.kill(node.proc.pid!, 'SIGTERM');
  const code = await exited;
  const drainMs = Date.now() - t0;
  const s = await slow;
  (load as unknown as { stop(): void }).stop();
  be.close();
  const reasons: string[] = [];
  if (code !== 0) reasons.push(`exit code ${code}`);
  if (drainMs > 5000) reasons.push(`the drain took ${drainMs} ms (longest call in flight: 2 s)`);
  if (s.status !== 200 || s.headers['connection'] !== 'close') reasons.push(`the call in flight answered ${s.status} ${s.error ?? ''}`);
  return {
    name: 'SIGTERM drain under keep-alive load', pass: reasons.length === 0, reasons,
    figures: `64 keep-alive connections, a 2 s call in flight, graceful_stop_timeout 30 s: stopped in ${drainMs} ms, the call in flight 200 with Connection: close`,
    data: { drainMs, exit: code },
  };
}

/** 4. The store's disk filled under token load for a third of the run, then freed. */
async function fullDisk(): Promise<Outcome> {
  let disk: ReturnType<typeof smallDisk> | null = null;
  const unmount: (() => void)[] = [];
  const node = await startSluice({ offset: 930, ioThreads: 1, files: { [`${APPS}/chaos.toml`]: APP }, conf: { ...ADMIN, ...JSON_LOG },
    prepare: (home) => { disk = smallDisk(path.join(home, 'repository/database'), 64, (fn) => unmount.push(fn)); } });
  const d = disk!;
  const tally = new Tally();
  const issued: string[] = [];
  let stop = false;
  const loops = Array.from({ length: 16 }, async () => {
    while (!stop) { const r = await token(node); tally.add(r); if (r.status === 200 && issued.length < 50) issued.push(r.json.access_token); if (r.status !== 200) await sleep(20); }
  });
  await sleep(SECONDS * 333);
  const kept = [...issued];
  const fillAt = Date.now();
  d.fill(node.proc.pid!);
  const ready = readinessSampler(node);
  await sleep(SECONDS * 333);
  d.free(node.proc.pid!);
  const freeAt = Date.now();
  const downSeen = ready.downSeen();
  ready.stop();
  const served = await until(async () => (await token(node)).status === 200, 10_000, 200);
  await sleep(SECONDS * 333);
  stop = true;
  await Promise.all(loops);
  const readyAgain = await until(async () => (await send(readyUrl(node))).status === 200, 10_000, 200);
  const admin = basic('admin', 'admin');
  const known = await Promise.all(kept.map((t) => send(`https://127.0.0.1:${node.servletHttps}/oauth2/introspect`, { form: { token: t }, headers: { authorization: admin } })));
  const lost = known.filter((r) => r.json?.active !== true).length;
  const wasAlive = alive(node);
  await stopTracked(node.proc);
  for (const u of unmount) u();
  // ERROR lines while the disk was full, and the summaries of the window that ends after it.
  const errorLines = logRecords(node).filter((l) => Number(l['level']) >= 50 && Number(l['time']) >= fillAt && Number(l['time']) <= freeAt + 10_000).length;
  const allowed = 2 * (Math.ceil((freeAt - fillAt) / 10_000) + 1);
  const reasons: string[] = [];
  if (!wasAlive) reasons.push('the node died');
  const odd = tally.others(['200', '503 temporarily_unavailable']);
  if (odd.length) reasons.push(`answers other than 200 / 503 temporarily_unavailable: ${odd.map((k) => `${k} x${tally.get(k)}`).join(', ')}`);
  if (tally.get('503 temporarily_unavailable') === 0) reasons.push('no request was refused: the disk never filled?');
  if (errorLines > allowed) reasons.push(`${errorLines} ERROR lines while the disk was full (at most ${allowed}: one per kind and 10 s window)`);
  if (!downSeen) reasons.push('/health/ready never DOWN while the disk was full');
  if (!served || !readyAgain) reasons.push('not serving / ready again after the disk was freed');
  if (lost) reasons.push(`${lost} of ${kept.length} tokens issued before are gone`);
  return {
    name: `Full disk (${d.how})`, pass: reasons.length === 0, reasons,
    figures: `${tally.total} token calls: ${tally.get('200')} x 200, ${tally.get('503 temporarily_unavailable')} x 503 while full (${Math.round((freeAt - fillAt) / 1000)} s); ${errorLines} ERROR lines; readiness DOWN then UP; ${kept.length - lost}/${kept.length} earlier tokens kept`,
    data: { counts: tally.counts, errorLines, lost },
  };
}

/** 5. A dead backend under load: the WARN lines it causes. */
async function logFlood(): Promise<Outcome> {
  const dead = 18999;
  if (!(await portFree(dead))) throw new Error(`port ${dead} must be free (the dead backend)`);
  const node = await startSluice({ offset: 940, ioThreads: 1, conf: { ...ADMIN, ...JSON_LOG }, files: {
    [`${APIS}/dead.toml`]: benchApiToml({ name: 'Dead', context: '/dead', backend: `http://127.0.0.1:${dead}` }),
  } });
  const seconds = Math.max(10, SECONDS / 2);
  const r = await autocannon({ url: `http://127.0.0.1:${node.http}/dead/1.0.0/x`, connections: 32, duration: seconds, pipelining: 1 });
  await stopTracked(node.proc);
  const warns = logRecords(node).filter((l) => l['code'] === 101503);
  const counted = warns.reduce((n, l) => n + (l['suppressed'] === undefined ? 1 : Number(l['suppressed'])), 0);
  const bytes = fs.statSync(path.join(node.home, 'repository/logs/sluice.log')).size;
  const reasons: string[] = [];
  if (warns.length > Math.ceil(seconds / 10) + 2) reasons.push(`${warns.length} WARN lines in ${seconds} s`);
  if (Math.abs(counted - r.non2xx) > 32) reasons.push(`the lines count ${counted} failures, autocannon saw ${r.non2xx} 503s`);
  return {
    name: 'Dead backend: log flood', pass: reasons.length === 0, reasons,
    figures: `${r.non2xx} calls answered 503/101503 in ${seconds} s: ${warns.length} WARN lines counting ${counted}; log ${Math.round(bytes / 1024)} KiB`,
    data: { failed: r.non2xx, lines: warns.length, counted, bytes },
  };
}

/** 6. Revocation time to two gateway-workers, with Redis events up and then down (the control plane's journal). */
async function revocation(): Promise<Outcome> {
  const redis = await startRedisServer(16389);
  const cert = selfSignedCertificate(tmpDir('sluice-chaos-cert-'));
  const be = await startBackend();
  const redisConf = { redis_config: { enable: true, url: redis.url } };
  const cp = await startSluice({ offset: 950, ioThreads: 1, gateway: false, files: {}, conf: {
    ...ADMIN, server: { server_role: 'api-publisher' }, apim: { ...redisConf, gateway_notification: { cleanup: { expiry_time: '2s' } } },
    transport: { passthru_https: { listener: { key_store: { file_name: cert.keyStore, type: 'PEM', password: '', key_password: '' } } } },
  } });
  const service = `https://localhost:${cp.servletHttps}/services/`;
  const worker = (offset: number): Promise<SluiceHandle> => startSluice({ offset, ioThreads: 1, files: {}, conf: {
    server: { server_role: 'gateway-worker' },
    apim: { ...redisConf, event_hub: { enable: true, service_url: service, event_listening_endpoints: [service], username: 'admin', password: 'admin' }, key_manager: { service_url: service } },
    transport: { passthru_https: { sender: { trust_store: { file_name: cert.trust, type: 'PEM' } } } },
  } });
  const workers = [await worker(960), await worker(970)];
  const admin = { authorization: basic('admin', 'admin') };
  const adminBase = `https://127.0.0.1:${cp.servletHttps}/api/am/admin/v1`;
  await send(`${adminBase}/apis`, { headers: admin, json: { name: 'Revoked', context: '/revoked', version: '1.0.0', lifecycle_state: 'PUBLISHED', endpoints: { production: be.url },
    resources: [{ verb: 'GET', uri_template: '/*', auth_type: 'Application & Application User' }] } });
  const app = await send(`${adminBase}/applications`, { headers: admin, json: { name: 'RevokeApp', keys: [{ key_type: 'PRODUCTION', grant_types: ['client_credentials'] }], subscriptions: [{ api: 'Revoked:1.0.0', throttling_policy: 'Unlimited' }] } });
  const key = app.json.keys[0] as { client_id: string; client_secret: string };
  const auth = basic(key.client_id, key.client_secret);
  const call = (w: SluiceHandle, t: string): Promise<Answer> => send(`http://127.0.0.1:${w.http}/revoked/1.0.0/x`, { headers: { authorization: `Bearer ${t}` } });
  // Light background load on both workers with a token that stays valid.
  const steady = (await send(`https://127.0.0.1:${cp.servletHttps}/oauth2/token`, { form: { grant_type: 'client_credentials' }, headers: { authorization: auth } })).json.access_token as string;
  let stop = false;
  const background = workers.map(async (w) => { while (!stop) { await call(w, steady); await sleep(5); } });
  const measure = async (): Promise<number> => {
    const t = (await send(`https://127.0.0.1:${cp.servletHttps}/oauth2/token`, { form: { grant_type: 'client_credentials' }, headers: { authorization: auth } })).json.access_token as string;
    for (const w of workers) if (!(await until(async () => (await call(w, t)).status === 200, 15_000, 50))) throw new Error('a fresh token is not accepted by a worker');
    const t0 = Date.now();
    await send(`https://127.0.0.1:${cp.servletHttps}/oauth2/revoke`, { form: { token: t }, headers: { authorization: auth } });
    const times = await Promise.all(workers.map(async (w) => { await until(async () => (await call(w, t)).status === 401, 60_000, 2); return Date.now() - t0; }));
    return Math.max(...times);
  };
  const up: number[] = [];
  for (let i = 0; i < 10; i++) up.push(await measure());
  await redis.kill();
  await sleep(2000);
  const down: number[] = [];
  for (let i = 0; i < 10; i++) down.push(await measure());
  stop = true;
  await Promise.all(background);
  for (const n of [...workers, cp]) await stopTracked(n.proc);
  be.close();
  const med = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const reasons: string[] = [];
  if (Math.max(...down) > 1000) reasons.push(`with Redis down a revocation took ${Math.max(...down)} ms to reach every worker`);
  if (Math.max(...up) > 1000) reasons.push(`with Redis up a revocation took ${Math.max(...up)} ms`);
  return {
    name: 'Revocation to every gateway-worker, Redis up / down', pass: reasons.length === 0, reasons,
    figures: `2 workers, 10 revocations each way (time until both refuse the token, polled every 2 ms): Redis up median ${med(up)} ms, max ${Math.max(...up)} ms; Redis down median ${med(down)} ms, max ${Math.max(...down)} ms (goal < 100 ms)`,
    data: { up, down },
  };
}

/** 7. One advanced policy shared by two gateways through Redis: calls admitted per window against the limit. */
async function sharedLimit(): Promise<Outcome> {
  const redis = await startRedisServer(16390);
  const be = await startBackend();
  const WINDOW_S = 10;
  const LIMIT = 300;
  const files = {
    [`${POLICIES}/chaos.toml`]: `[[advanced]]\nname = "Shared300"\nrequests = ${LIMIT}\nunit_time = ${WINDOW_S}\ntime_unit = "sec"\n`,
    [`${APIS}/shared.toml`]: `name = "Shared"\ncontext = "/shared"\nversion = "1.0.0"\nthrottling_policy = "Shared300"\n[endpoints]\nproduction = "${be.url}"\n`
      + '[[resources]]\nverb = "GET"\nuri_template = "/*"\nauth_type = "None"\nthrottling_policy = "Unlimited"\n',
  };
  const conf = { ...ADMIN, apim: { redis_config: { enable: true, url: redis.url, key_prefix: 'chaos:' } } };
  const nodes = [await startSluice({ offset: 980, ioThreads: 1, files, conf }), await startSluice({ offset: 990, ioThreads: 1, files, conf })];
  await sleep(3000);
  // Light load: 8 clients per gateway, in loops (a few hundred calls a second, far over 30 a second).
  const windows = new Map<number, number>();
  const end = Date.now() + Math.max(3, Math.round(SECONDS / WINDOW_S)) * WINDOW_S * 1000 + WINDOW_S * 1000;
  await Promise.all(nodes.flatMap((n) => Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      const r = await send(`http://127.0.0.1:${n.http}/shared/1.0.0/x`);
      if (r.status === 200) { const w = Math.floor(r.at / (WINDOW_S * 1000)); windows.set(w, (windows.get(w) ?? 0) + 1); }
    }
  })));
  for (const n of nodes) await stopTracked(n.proc);
  be.close();
  // Whole windows only: not the first (the load started in it) nor the last.
  const keys = [...windows.keys()].sort((a, b) => a - b).slice(1, -1);
  const passed = keys.map((k) => windows.get(k)!);
  const errors = passed.map((p) => Math.abs(p - LIMIT) / LIMIT);
  const worst = Math.max(0, ...errors);
  const reasons: string[] = [];
  if (passed.length === 0) reasons.push('no whole window measured');
  if (worst > 0.05) reasons.push(`a window admitted ${passed[errors.indexOf(worst)]} calls for a limit of ${LIMIT}`);
  return {
    name: 'Shared limit across 2 gateways (Redis)', pass: reasons.length === 0, reasons,
    figures: `limit ${LIMIT} per ${WINDOW_S} s, 16 clients over 2 gateways: admitted per window ${passed.join(', ')}; worst error ${(worst * 100).toFixed(1)}% (goal <= 5%)`,
    data: { limit: LIMIT, windowSeconds: WINDOW_S, passed },
  };
}

// ---------------------------------------------------------------------------------------------- driver

const FAULTS: { key: string; run: () => Promise<Outcome> }[] = [
  { key: 'postgres', run: postgresLoss },
  { key: 'redeploy', run: redeploy },
  { key: 'drain', run: drain },
  { key: 'disk', run: fullDisk },
  { key: 'flood', run: logFlood },
  { key: 'revocation', run: revocation },
  { key: 'limit', run: sharedLimit },
];

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(PROJECT, 'dist/engine/runtime/node.js'))) throw new Error('run `npm run build` first (npm run chaos does)');
  const outcomes: Outcome[] = [];
  for (const f of FAULTS) {
    if (ONLY && !ONLY.includes(f.key)) continue;
    const t0 = Date.now();
    process.stdout.write(`${f.key}... `);
    let o: Outcome;
    try {
      o = await f.run();
    } catch (err) {
      o = { name: f.key, pass: false, figures: '', reasons: [`the run failed: ${(err as Error).message}`] };
    }
    try { cleanupAll(); } catch (err) { o = { ...o, pass: false, reasons: [...o.reasons, `cleaning up failed: ${(err as Error).message}`] }; }
    outcomes.push(o);
    process.stdout.write(`${o.pass ? 'PASS' : 'FAIL'} (${Math.round((Date.now() - t0) / 1000)} s)\n`);
  }
  const width = Math.max(...outcomes.map((o) => o.name.length));
  console.log(`\n${'fault'.padEnd(width)}  result  what was measured`);
  for (const o of outcomes) {
    console.log(`${o.name.padEnd(width)}  ${o.pass ? 'PASS' : 'FAIL'}    ${o.figures}`);
    for (const r of o.reasons) console.log(`${''.padEnd(width)}          - ${r}`);
  }
  const dir = path.join(PROJECT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `chaos-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ seconds: SECONDS, at: new Date().toISOString(), outcomes }, null, 2));
  console.log(`\n${outcomes.filter((o) => o.pass).length} of ${outcomes.length} PASS; ${path.relative(PROJECT, file)}`);
  process.exitCode = outcomes.every((o) => o.pass) ? 0 : 1;
}

void main().catch((err: Error) => { console.error(err.message); process.exitCode = 1; }).finally(() => { cleanupAll(); });
