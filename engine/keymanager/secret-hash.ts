import crypto from 'node:crypto';
import { HashingBusyError } from './errors.js';

/**
 * Client secrets and user passwords are stored as `scrypt$N$r$p$salt$hash` (salt and hash base64url,
 * 32-byte hash). Verification is constant-time. A correct secret is remembered (as its SHA-256, in memory,
 * keyed by the stored hash) so that a client asking for tokens over and over pays scrypt once; a wrong
 * secret always pays it, through a bounded gate (HashGate).
 */
export const SCRYPT_N = 16384;
export const SCRYPT_R = 8;
export const SCRYPT_P = 1;
const KEYLEN = 32;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{40,})$/;

function scrypt(secret: string, salt: Buffer, n: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto.scrypt(secret, salt, keylen, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashSecret(secret: string, params: { n?: number; r?: number; p?: number } = {}): Promise<string> {
  const n = params.n ?? SCRYPT_N, r = params.r ?? SCRYPT_R, p = params.p ?? SCRYPT_P;
  const salt = crypto.randomBytes(16);
  const key = await scrypt(secret, salt, n, r, p, KEYLEN);
  return `scrypt$${n}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether a string is a hash this module can verify (for client_secret_hash in application files). */
export function isSecretHash(value: string): boolean {
  const m = FORMAT.exec(value);
  if (!m) return false;
  const n = Number(m[1]), r = Number(m[2]), p = Number(m[3]);
  return n >= 2 && (n & (n - 1)) === 0 && n <= 1 << 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
}

const verified = new Map<string, Buffer>();
const MAX_REMEMBERED = 10_000;

const sha256 = (s: string): Buffer => crypto.createHash('sha256').update(s, 'utf8').digest();

/**
 * The bound on scrypt under attack: at most `concurrency` verifications run (each holds a libuv thread, which
 * file and DNS work share), at most `queue` wait, and one identity holds at most `perIdentity` of the running
 * and waiting ones; beyond, HashingBusyError (503) without hashing. Process-wide, as the thread pool is.
 */
class HashGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly perIdentityCount = new Map<string, number>();
  /** Verifications refused at the bound, since start (metrics). */
  refused = 0;

  constructor(readonly concurrency: number, readonly queue: number, readonly perIdentity: number) {}

  async run<T>(identity: string, fn: () => Promise<T>): Promise<T> {
    const mine = this.perIdentityCount.get(identity) ?? 0;
    if (mine >= this.perIdentity) { this.refused++; throw new HashingBusyError('too many password checks for this identity at once; retry'); }
    if (this.running >= this.concurrency && this.waiting.length >= this.queue) { this.refused++; throw new HashingBusyError('password checking is at capacity; retry'); }
    this.perIdentityCount.set(identity, mine + 1);
    try {
      if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
      else this.running++;
      try {
        return await fn();
      } finally {
        // The slot passes to the next waiter as is (running stays), or is given back.
        const next = this.waiting.shift();
        if (next) next(); else this.running--;
      }
    } finally {
      const left = (this.perIdentityCount.get(identity) ?? 1) - 1;
      if (left > 0) this.perIdentityCount.set(identity, left); else this.perIdentityCount.delete(identity);
    }
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }
}

let gate = new HashGate(2, 64, 2);

/** [sluice.authentication]: the hashing bound (set at start; calls in flight finish on the old gate). */
export function limitHashing(o: { readonly maxConcurrentHashes: number; readonly maxQueuedHashes: number; readonly maxHashesPerIdentity: number }): void {
  gate = new HashGate(o.maxConcurrentHashes, o.maxQueuedHashes, o.maxHashesPerIdentity);
}

/** The hashing gate's state, for metrics. */
export function hashingStats(): { active: number; queued: number; refused: number } {
  return { active: gate.active, queued: gate.queued, refused: gate.refused };
}

/** Verifications in progress by (stored hash, secret digest): the same secret presented at once is hashed once. */
const inFlight = new Map<string, Promise<boolean>>();

/**
 * Whether `secret` matches `stored`. A secret verified before is recognised without scrypt; otherwise, for a
 * caller's credentials, the scrypt runs through the hashing gate under `identity` (the client id or user
 * name presented) and may be refused with HashingBusyError. `identity` null: Sluice's own check of its
 * configuration (applications, the super admin), never gated.
 */
export async function verifySecret(secret: string, stored: string, identity: string | null = null): Promise<boolean> {
  const remembered = verified.get(stored);
  const digest = sha256(secret);
  if (remembered && crypto.timingSafeEqual(remembered, digest)) return true;
  if (!isSecretHash(stored)) return false;
  const key = `${stored}\u0000${digest.toString('base64')}`;
  const pending = inFlight.get(key);
  if (pending) return pending;
  const check = (): Promise<boolean> => scryptMatches(secret, stored);
  const run = (identity === null ? check() : gate.run(identity, check)).then((ok) => {
    if (ok) {
      if (verified.size >= MAX_REMEMBERED) verified.delete(verified.keys().next().value!);
      verified.set(stored, digest);
    }
    return ok;
  }).finally(() => inFlight.delete(key));
  inFlight.set(key, run);
  return run;
}

async function scryptMatches(secret: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored)!;
  const salt = Buffer.from(m[4]!, 'base64url');
  const want = Buffer.from(m[5]!, 'base64url');
  let got: Buffer;
  try {
    got = await scrypt(secret, salt, Number(m[1]), Number(m[2]), Number(m[3]), want.length);
  } catch {
    return false;
  }
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}

/** Constant-time comparison of two clear strings (configured credentials). */
export function safeEqual(a: string, b: string): boolean {
  const da = sha256(a), db = sha256(b);
  return crypto.timingSafeEqual(da, db) && a.length === b.length;
}
