import fs from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'smol-toml';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export { freePort } from './ports.js';
import { freePort } from './ports.js';

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  for (const [k0, v0] of Object.entries(b)) {
    let k = k0;
    let v = v0;
    const dot = k.indexOf('.');
    if (dot > 0 && a[k] === undefined && a[k.slice(0, dot)] && typeof a[k.slice(0, dot)] === 'object') {
      v = { [k.slice(dot + 1)]: v0 };
      k = k.slice(0, dot);
    }
    const cur = a[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)) merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    else a[k] = v;
  }
  return a;
}

export interface TestHome {
  readonly dir: string;
  readonly ports: { readonly http: number; readonly https: number; readonly servletHttp: number; readonly servletHttps: number };
  write(rel: string, text: string): void;
  remove(rel: string): void;
  /** Log records written so far (the home's log file, JSON lines). */
  logs(): Record<string, unknown>[];
  cleanup(): void;
}

/** The files of home/ that git tracks: what a fresh clone's default home holds. */
export function trackedHomeFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', 'home'], { cwd: PROJECT, encoding: 'utf8' }).split('\0').filter(Boolean);
}

export interface MakeHomeOptions {
  /**
   * The home exactly as a fresh clone has it (the files git tracks), with no test credentials: for tests of
   * what a default home does. Otherwise the working copy's home/ without runtime data and generated secrets.
   */
  readonly fresh?: boolean;
}

/**
 * A throwaway home made from the project's own home/: its deployment.toml merged with `conf`, free ports
 * on 127.0.0.1 for every listener, JSON logs to a file only, and extra files (API definitions...).
 */
export async function makeHome(conf: Record<string, unknown> = {}, files: Record<string, string> = {}, opts: MakeHomeOptions = {}): Promise<TestHome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-test-home-'));
  if (opts.fresh) {
    for (const f of trackedHomeFiles()) {
      const to = path.join(dir, path.relative('home', f));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(path.join(PROJECT, f), to);
    }
  } else {
    fs.cpSync(path.join(PROJECT, 'home'), dir, { recursive: true, filter: (p) => !/repository\/(database|logs)(\/|$)|resources\/security\/./.test(p) });
  }
  const ports = { http: await freePort(), https: await freePort(), servletHttp: await freePort(), servletHttps: await freePort() };
  const confPath = path.join(dir, 'repository/conf/deployment.toml');
  const base = parse(fs.readFileSync(confPath, 'utf8')) as Record<string, unknown>;
  merge(base, {
    server: { offset: 0 },
    transport: {
      passthru_http: { listener: { parameters: { port: ports.http } }, 'listener.bind-address': '127.0.0.1' },
      passthru_https: { listener: { parameters: { port: ports.https } }, 'listener.bind-address': '127.0.0.1' },
      http: { properties: { port: ports.servletHttp } },
      https: { properties: { port: ports.servletHttps } },
    },
    passthru_http: { io_threads_per_reactor: 1 },
    sluice: { log: { console: false, format: 'json', level: 'debug' } },
    // Tests set the administrator's credentials themselves, as an operator would: a default home has none.
    ...(opts.fresh ? {} : { super_admin: { username: 'admin', password: 'admin' } }),
  });
  merge(base, conf);
  fs.writeFileSync(confPath, stringify(base));
  const home: TestHome = {
    dir,
    ports,
    write(rel, text) {
      const p = path.join(dir, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
    },
    remove(rel) { fs.rmSync(path.join(dir, rel), { force: true }); },
    logs() {
      const f = path.join(dir, 'repository/logs/sluice.log');
      if (!fs.existsSync(f)) return [];
      return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return { msg: l }; } });
    },
    cleanup() { fs.rmSync(dir, { recursive: true, force: true }); },
  };
  for (const [rel, text] of Object.entries(files)) home.write(rel, text);
  return home;
}

/** The head of an API definition file (the agreed format): identity, lifecycle, extra lines, endpoints. */
export function apiHeadToml(o: { name: string; context: string; production?: string; sandbox?: string; version?: string; type?: string; state?: string; extra?: string }): string {
  return `name = "${o.name}"
context = "${o.context}"
version = "${o.version ?? '1.0.0'}"
type = "${o.type ?? 'HTTP'}"
lifecycle_state = "${o.state ?? 'PUBLISHED'}"
throttling_policy = "Unlimited"
${o.extra ?? ''}
[endpoints]
${o.production ? `production = "${o.production}"` : ''}
${o.sandbox ? `sandbox = "${o.sandbox}"` : ''}
`;
}

/** An API definition file (the agreed format) with open resources for the given verbs. */
export function apiToml(o: { name: string; context: string; production?: string; sandbox?: string; version?: string; type?: string; state?: string; verbs?: string[]; template?: string; extra?: string; authType?: string }): string {
  const verbs = o.verbs ?? ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'];
  return `${apiHeadToml(o)}${verbs.map((v) => `[[resources]]
verb = "${v}"
uri_template = "${o.template ?? '/*'}"
auth_type = "${o.authType ?? 'None'}"
throttling_policy = "Unlimited"
`).join('\n')}`;
}

export const API_DIR = 'repository/deployment/server/apis';

/** Waits until `check` holds, polling. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, ms = 10000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
