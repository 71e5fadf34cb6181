/**
 * Shared pieces of the throttling tests: API and policy files, window alignment, a real redis-server in
 * a temporary directory, and tokens from the node's own key manager.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/home.js';
import { waitPort } from '../helpers/ports.js';
import type { ClientResponse } from '../helpers/backends.js';

export const POLICY_DIR = 'repository/deployment/server/policies';
export const APP_DIR = 'repository/deployment/server/applications';
export const API_DIR = 'repository/deployment/server/apis';

export interface ResourceSpec {
  readonly verb?: string;
  readonly template?: string;
  readonly policy?: string;
  readonly auth?: string;
}

/** An API definition with its API-level policy and resources (auth None unless said). */
export function throttledApi(o: { name: string; context: string; backend: string; policy?: string; resources?: ResourceSpec[]; extra?: string }): string {
  const resources = o.resources ?? [{}];
  return `name = "${o.name}"
context = "${o.context}"
version = "1.0.0"
type = "HTTP"
lifecycle_state = "PUBLISHED"
throttling_policy = "${o.policy ?? 'Unlimited'}"
${o.extra ?? ''}
[endpoints]
production = "${o.backend}"
sandbox = "${o.backend}"
${resources.map((r) => `[[resources]]
verb = "${r.verb ?? 'GET'}"
uri_template = "${r.template ?? '/*'}"
auth_type = "${r.auth ?? 'None'}"
throttling_policy = "${r.policy ?? 'Unlimited'}"
`).join('\n')}`;
}

/** One `[[level]]` policy of N requests per window. */
export function policy(level: string, name: string, requests: number, unit = 'min', extra = ''): string {
  return `[[${level}]]
name = "${name}"
requests = ${requests}
unit_time = 1
time_unit = "${unit}"
${extra}
`;
}

/**
 * Waits, when needed, so that at least `needMs` remain before the next boundary of `windowMs` windows
 * (epoch-aligned, as Sluice counts them): a burst of test calls then falls in one window.
 */
export async function inOneWindow(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await sleep(left + 50);
}

/** Waits until just after the next boundary of `windowMs` windows. */
export async function nextWindow(windowMs: number): Promise<void> {
  await sleep(windowMs - (Date.now() % windowMs) + 30);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function statuses(rs: readonly ClientResponse[]): string {
  return rs.map((r) => r.status).join(',');
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  child: ChildProcess;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
  /** Starts a fresh redis-server on the same port (no persisted data: a restart loses counters). */
  restart(): Promise<void>;
}

/** A real redis-server (the Debian package's binary) on a free port, in a temporary directory. */
export async function startRedis(t: { teardown(fn: () => unknown): void }): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-redis-'));
  const port = await freePort();
  const launch = (): ChildProcess => spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' });
  const server: RedisServer = {
    port, dir, url: `redis://127.0.0.1:${port}`,
    child: launch(),
    async kill() {
      const c = server.child;
      if (c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    },
    async restart() {
      await server.kill();
      server.child = launch();
      await waitPort(port, 10000);
    },
  };
  await waitPort(port, 10000);
  t.teardown(async () => { await server.kill(); fs.rmSync(dir, { recursive: true, force: true }); });
  return server;
}

/** An application file (the agreed format) subscribed to `api` with a subscription tier. */
export function applicationToml(o: { name: string; clientId: string; secret: string; appPolicy?: string; subscriptions: { api: string; policy: string }[]; owner?: string }): string {
  return `name = "${o.name}"
owner = "${o.owner ?? 'admin'}"
throttling_policy = "${o.appPolicy ?? 'Unlimited'}"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "${o.clientId}"
client_secret = "${o.secret}"
grant_types = ["client_credentials", "password", "refresh_token"]
${o.subscriptions.map((s) => `[[subscriptions]]
api = "${s.api}"
throttling_policy = "${s.policy}"
state = "UNBLOCKED"
`).join('\n')}`;
}

/** client_credentials (or password) token from the node's key manager on the servlet HTTPS port. */
export function getToken(httpsPort: number, clientId: string, secret: string, extra: Record<string, string> = {}): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...extra }).toString();
  return new Promise((resolve, reject) => {
    const r = https.request({
      host: '127.0.0.1', port: httpsPort, path: '/oauth2/token', method: 'POST', rejectUnauthorized: false, agent: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${clientId}:${secret}`).toString('base64') },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        try {
          const j = JSON.parse(text) as { access_token?: string };
          if (res.statusCode === 200 && j.access_token) resolve(j.access_token);
          else reject(new Error(`token: ${res.statusCode} ${text}`));
        } catch (err) { reject(err as Error); }
      });
    });
    r.on('error', reject);
    r.end(body);
  });
}

/** A gateway (in this process) with one secured API and one subscribed application, and a way to get its tokens. */
export async function securedGateway(t: { teardown(fn: () => unknown): void }, o: {
  subPolicy?: string; appPolicy?: string; policies?: string; conf?: Record<string, unknown>; apiPolicy?: string; resourcePolicy?: string; files?: Record<string, string>;
  /** The echo backend's own answers (echoBackend's `handle`). */
  backend?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
}) {
  const { echoBackend } = await import('../helpers/backends.js');
  const { startSluice } = await import('../helpers/sluice.js');
  const be = await echoBackend(t, o.backend);
  const s = await startSluice(t, o.conf ?? {}, {
    ...(o.policies ? { [`${POLICY_DIR}/test.toml`]: o.policies } : {}),
    [`${API_DIR}/secure.toml`]: throttledApi({
      name: 'AcmeSecure', context: '/secure', backend: be.url, policy: o.apiPolicy ?? 'Unlimited',
      resources: [{ template: '/*', auth: 'Application & Application User', policy: o.resourcePolicy ?? 'Unlimited' }],
    }),
    [`${APP_DIR}/acme.toml`]: applicationToml({
      name: 'AcmeApp', clientId: 'acme-client', secret: 'acme-secret', appPolicy: o.appPolicy ?? 'Unlimited',
      subscriptions: [{ api: 'AcmeSecure:1.0.0', policy: o.subPolicy ?? 'Unlimited' }],
    }),
    [`${APP_DIR}/other.toml`]: applicationToml({
      name: 'OtherApp', clientId: 'other-client', secret: 'other-secret', owner: 'bob', appPolicy: o.appPolicy ?? 'Unlimited',
      subscriptions: [{ api: 'AcmeSecure:1.0.0', policy: o.subPolicy ?? 'Unlimited' }],
    }),
    ...(o.files ?? {}),
  });
  const token = (clientId = 'acme-client', secret = 'acme-secret'): Promise<string> => getToken(s.home.ports.servletHttps, clientId, secret);
  const call = async (at: string, path = '/secure/1.0.0/x', headers: Record<string, string> = {}) => {
    const { request } = await import('../helpers/backends.js');
    return request(s.url(path), { headers: { authorization: `Bearer ${at}`, ...headers } });
  };
  return { s, be, token, call };
}
