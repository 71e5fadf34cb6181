/**
 * What the chaos run (bench/chaos.ts) starts besides Sluice: a throwaway PostgreSQL cluster it can crash and
 * start again, and a redis-server it can kill and start again. Every process is tracked by products.ts and
 * killed at exit.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
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
