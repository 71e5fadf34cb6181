import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'smol-toml';
import { waitPort } from './ports.js';

export { portFree, waitPort } from './ports.js';

/** The project root (bench/lib/ compiles to dist/bench/lib/). */
export const PROJECT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

/** The rate limit the secured peers count against by default: per client and minute, never reached by the bench. */
export const NEVER_TRIPPING_LIMIT = 1_000_000_000;

/**
 * nginx's add_header lines for the X-RateLimit-* fields of a call Sluice lets through under a limit of
 * NEVER_TRIPPING_LIMIT a minute: as many digits each (the reset is 1 to 60 seconds; two digits here).
 */
const RATE_LIMIT_FIELDS = `add_header X-RateLimit-Limit ${NEVER_TRIPPING_LIMIT}; add_header X-RateLimit-Remaining ${NEVER_TRIPPING_LIMIT - 1}; add_header X-RateLimit-Reset 30;`;

const children: ChildProcess[] = [];
const dirs: string[] = [];
export function cleanupAll(): void {
  for (const c of children.splice(0)) { try { process.kill(-c.pid!, 'SIGKILL'); } catch { /* gone */ } }
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}
process.on('exit', cleanupAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => { cleanupAll(); process.exit(130); });

export function tmpDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export function spawnTracked(cmd: string, args: string[], o: { cwd?: string; log?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const out = o.log ? fs.openSync(o.log, 'w') : 'ignore';
  const c = spawn(cmd, args, { cwd: o.cwd ?? PROJECT, detached: true, stdio: ['ignore', out, out], env: { ...process.env, ...(o.env ?? {}) } });
  children.push(c);
  return c;
}

export function stopTracked(c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) { resolve(); return; }
    const t = setTimeout(() => { try { process.kill(-c.pid!, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    c.once('exit', () => { clearTimeout(t); resolve(); });
    try { process.kill(-c.pid!, signal); } catch { clearTimeout(t); resolve(); }
  });
}

export function nginxAvailable(): boolean {
  return ['/usr/sbin/nginx', '/usr/bin/nginx'].some((p) => fs.existsSync(p));
}

/**
 * nginx as the fixed fast backend of the benchmarks (small JSON, a 1 MiB file at /1mb, POSTs to /upload read
 * whole and answered with a small JSON), in its own process, so that a proxy's workers only proxy (the nginx proxy of `npm run
 * bench` is bench/peers/nginx.ts).
 */
export async function startNginxBackend(port: number): Promise<ChildProcess> {
  const dir = tmpDir('sluice-bench-nginx-be-');
  // nginx workers run as nobody: the files must be readable to them.
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, '1mb.bin'), Buffer.alloc(1024 * 1024, 97), { mode: 0o644 });
  // /upload reads the whole body before it answers, as an API backend does: nginx's `return` answers at
  // once and leaves the body to be discarded, and a proxy streaming a 1 MiB upload to such a backend may
  // then close its client's connection (nginx with proxy_request_buffering off does). So /upload reads the
  // body into memory (up to 2 MiB; no temp file), then answers through a request without it to a second
  // server of the same nginx (on 127.0.0.2, so that it takes no port of 127.0.0.1).
  // /rl is the small JSON with the X-RateLimit-* fields Sluice adds to a secured call under the bench's
  // policies (as many digits each): the `get-bytes` load (bench/run.ts) passes them through.
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `worker_processes 1;
daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 8192; }
http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; client_max_body_size 2g; keepalive_requests 1000000;
upstream answer { server 127.0.0.2:${port}; keepalive 64; }
server { listen 127.0.0.2:${port}; location / { default_type application/json; return 200 '{"uploaded":true}'; } }
server { listen 127.0.0.1:${port} reuseport; root ${dir};
  location = /1mb { default_type application/octet-stream; try_files /1mb.bin =404; }
  location = /upload { client_body_buffer_size 2m; proxy_pass http://answer; proxy_pass_request_body off; proxy_set_header Content-Length ""; proxy_http_version 1.1; proxy_set_header Connection ""; }
  location = /rl { default_type application/json; ${RATE_LIMIT_FIELDS} return 200 '{"hello":"world","n":42}'; }
  location / { default_type application/json; return 200 '{"hello":"world","n":42}'; }
} }`);
  const c = spawnTracked('nginx', ['-c', path.join(dir, 'nginx.conf')]);
  await waitPort(port);
  return c;
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(b)) {
    const cur = a[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)) merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    else a[k] = v;
  }
}

export interface SluiceHandle {
  readonly proc: ChildProcess;
  readonly home: string;
  readonly http: number;
  readonly servletHttps: number;
}

/**
 * Sluice from the CLI on a throwaway copy of the default home, with extra files. Resolves once its ports
 * are open (`gateway: false`: the servlet port only, for a node without a gateway). `prepare` runs on the
 * home before the start (a filesystem mounted under it).
 */
export async function startSluice(o: { offset: number; ioThreads: number; files: Record<string, string>; conf?: Record<string, unknown>; gateway?: boolean; prepare?: (home: string) => void; root?: string }): Promise<SluiceHandle> {
  // `root`: another checkout of Sluice (built), started from its own CLI and default home (bench/ab.ts).
  const root = o.root ?? PROJECT;
  const home = tmpDir('sluice-bench-home-');
  fs.cpSync(path.join(root, 'home'), home, { recursive: true, filter: (p) => !/repository\/(database|logs)(\/|$)|resources\/security\/(generated|sluice-tls|oauth-signing)/.test(p) });
  const confPath = path.join(home, 'repository/conf/deployment.toml');
  const conf = parse(fs.readFileSync(confPath, 'utf8')) as Record<string, unknown>;
  merge(conf, { server: { offset: o.offset }, passthru_http: { io_threads_per_reactor: o.ioThreads }, sluice: { log: { console: false, level: 'warn' } }, http_access_log: { enabled: false } });
  if (o.conf) merge(conf, o.conf);
  fs.writeFileSync(confPath, stringify(conf));
  for (const [rel, text] of Object.entries(o.files)) {
    const p = path.join(home, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  o.prepare?.(home);
  const http = 8280 + o.offset;
  // As an operator starts it (npx sluice): the script itself, so its shebang's node flags apply.
  const proc = spawnTracked(path.join(root, 'bin/sluice.js'), ['start', '--home', home], { log: path.join(home, 'stdout.log') });
  if (o.gateway !== false) await waitPort(http);
  await waitPort(9443 + o.offset);
  return { proc, home, http, servletHttps: 9443 + o.offset };
}

/** Resident set size of a process and its threads, bytes. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function openFds(pid: number): number {
  try { return fs.readdirSync(`/proc/${pid}/fd`).length; } catch { return 0; }
}

/**
 * A pass-through API definition for the benchmarks (docs/declarative-files.md): `/*` for each verb, one
 * auth type, Unlimited tiers; `extra` lines go before [endpoints] (in_sequence, throttling_policy...).
 */
export function benchApiToml(o: { name: string; context: string; backend: string; verbs?: readonly string[]; auth?: string; extra?: string }): string {
  const resources = (o.verbs ?? ['GET']).map((v) => `[[resources]]
verb = "${v}"
uri_template = "/*"
auth_type = "${o.auth ?? 'None'}"
throttling_policy = "Unlimited"
`).join('');
  return `name = "${o.name}"
context = "${o.context}"
version = "1.0.0"
type = "HTTP"
lifecycle_state = "PUBLISHED"
throttling_policy = "Unlimited"
${o.extra ? `${o.extra}\n` : ''}[endpoints]
production = "${o.backend}"
${resources}`;
}
