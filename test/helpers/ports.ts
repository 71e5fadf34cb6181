import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';

/**
 * Ports for tests running in parallel processes: each claimed port gets a lock file naming the process
 * (removed at exit; a lock of a dead process is taken over), and is checked free with an exclusive bind.
 * Ports come from 12000-32699, below the kernel's ephemeral range (32768+), so that the outgoing
 * connections of other tests cannot take them in the meantime.
 */
const LOCK_DIR = path.join(os.tmpdir(), 'sluice-test-ports');
const mine = new Set<string>();
let hooked = false;

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}

function claim(port: number): boolean {
  fs.mkdirSync(LOCK_DIR, { recursive: true });
  const f = path.join(LOCK_DIR, String(port));
  try {
    fs.writeFileSync(f, String(process.pid), { flag: 'wx' });
  } catch {
    let owner = 0;
    try { owner = Number(fs.readFileSync(f, 'utf8')); } catch { return false; }
    if (owner === process.pid || alive(owner)) return false;
    fs.writeFileSync(f, String(process.pid));
  }
  mine.add(f);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => { for (const x of mine) { try { fs.rmSync(x, { force: true }); } catch { /* gone */ } } });
  }
  return true;
}

function release(port: number): void {
  const f = path.join(LOCK_DIR, String(port));
  if (mine.delete(f)) fs.rmSync(f, { force: true });
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

async function claimAll(ports: readonly number[]): Promise<boolean> {
  const got: number[] = [];
  for (const p of ports) {
    if (!claim(p)) break;
    got.push(p);
  }
  if (got.length === ports.length && (await Promise.all(ports.map(bindable))).every(Boolean)) return true;
  for (const p of got) release(p);
  return false;
}

const LOW = 12000;
const HIGH = 32700;

/** One free port, claimed for this process. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await claimAll([port])) return port;
  }
  throw new Error('no free test port found');
}

/** A server.offset whose shifted default ports (`bases`) are all free and claimed for this process. */
export async function freeOffset(bases: readonly number[] = [8280, 8243, 9443, 9763, 9611, 9711, 10005, 11224]): Promise<number> {
  const min = LOW - Math.min(...bases);
  const max = HIGH - Math.max(...bases);
  for (let i = 0; i < 500; i++) {
    const offset = min + Math.floor(Math.random() * (max - min));
    if (await claimAll(bases.map((b) => b + offset))) return offset;
  }
  throw new Error('no free port offset found');
}

/** Resolves once something accepts connections on 127.0.0.1:port (a child process started); fails after `ms`. */
export function waitPort(port: number, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(); });
      s.once('error', () => { s.destroy(); if (Date.now() > end) reject(new Error(`port ${port} not open after ${ms} ms`)); else setTimeout(attempt, 50); });
    };
    attempt();
  });
}
