/**
 * What the chaos run (bench/chaos.ts) starts besides Sluice: a throwaway PostgreSQL cluster it can crash and
 * start again, a redis-server it can kill and start again, a self-signed certificate for a control plane,
 * and small keep-alive HTTP(S) clients. Every process is tracked by products.ts and killed at exit.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { spawnTracked, stopTracked, tmpDir, waitPort } from './products.js';

function findPgBin(name: string): string {
  const dirs = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort().reverse().map((v) => `/usr/lib/postgresql/${v}/bin`) : [];
  const hit = [...(process.env['PATH'] ?? '').split(':'), ...dirs].map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
  if (!hit) throw new Error(`PostgreSQL is not installed (no ${name}): apt-get install -y postgresql`);
  return hit;
}

export interface PgCluster {
  readonly port: number;
  readonly url: string;
  /** psql-free: one statement through the `pg` client, as the superuser. */
  query(sql: string): Promise<Record<string, unknown>[]>;
  crash(): void;
  start(): void;
}

/** initdb + pg_ctl in a temp directory (as the `postgres` user when root), trust auth on 127.0.0.1. */
export async function startPgCluster(port: number, database: string): Promise<PgCluster> {
  const dir = tmpDir('sluice-chaos-pg-');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const run = (bin: string, args: string[]): void => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', findPgBin(bin), ...args]] : [findPgBin(bin), args];
    execFileSync(cmd, argv, { stdio: 'ignore', cwd: dir });
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--locale=C']);
  const start = (): void => run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
  const crash = (): void => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  process.on('exit', () => { try { crash(); } catch { /* already stopped */ } });
  const { default: pg } = await import('pg');
  const query = async (sql: string): Promise<Record<string, unknown>[]> => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await c.connect();
    try { return (await c.query(sql)).rows as Record<string, unknown>[]; } finally { await c.end(); }
  };
  await query(`CREATE DATABASE ${database}`);
  return { port, url: `postgres://postgres@127.0.0.1:${port}/${database}`, query, crash, start };
}

export interface RedisServer {
  readonly url: string;
  kill(): Promise<void>;
  start(): Promise<void>;
}

export async function startRedisServer(port: number): Promise<RedisServer> {
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawnTracked('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
    await waitPort(port);
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, kill: async () => { if (child) await stopTracked(child, 'SIGKILL'); }, start };
}

/** A key and certificate for localhost / 127.0.0.1 (one PEM with both, for a key store), and the certificate to trust. */
export function selfSignedCertificate(): { keyStore: string; trust: string } {
  const dir = tmpDir('sluice-chaos-cert-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  const keyStore = path.join(dir, 'cp.pem');
  fs.writeFileSync(keyStore, fs.readFileSync(key, 'utf8') + fs.readFileSync(cert, 'utf8'));
  return { keyStore, trust: cert };
}

export interface Answer {
  readonly status: number;
  readonly json: any;
  readonly headers: http.IncomingHttpHeaders;
  readonly error?: string;
  /** When the answer ended (epoch ms). */
  readonly at: number;
}

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

/** One request on a keep-alive agent; never throws (status 0 and `error` on a failure). */
export function send(url: string, o: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; json?: unknown; timeoutMs?: number } = {}): Promise<Answer> {
  const body = o.form ? new URLSearchParams(o.form).toString() : o.json !== undefined ? JSON.stringify(o.json) : undefined;
  const headers = { ...(o.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(o.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(o.headers ?? {}) };
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve) => {
    const r = mod.request(url, { method: o.method ?? (body !== undefined ? 'POST' : 'GET'), headers, agent: url.startsWith('https:') ? httpsAgent : httpAgent }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { let json; try { json = JSON.parse(text); } catch { /* not JSON */ } resolve({ status: res.statusCode ?? 0, json, headers: res.headers, at: Date.now() }); });
      res.on('error', (e) => resolve({ status: 0, json: undefined, headers: {}, error: e.message, at: Date.now() }));
    });
    r.on('error', (e) => resolve({ status: 0, json: undefined, headers: {}, error: e.message, at: Date.now() }));
    r.setTimeout(o.timeoutMs ?? 20_000, () => r.destroy(new Error('client timeout')));
    r.end(body);
  });
}

export const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it holds or `ms` pass; true when it held. */
export async function until(check: () => Promise<boolean> | boolean, ms: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await sleep(everyMs);
  }
}
