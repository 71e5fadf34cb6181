import crypto from 'node:crypto';

/**
 * Client secrets and user passwords are stored as `scrypt$N$r$p$salt$hash` (salt and hash base64url,
 * 32-byte hash). Verification is constant-time. A correct secret is remembered (as its SHA-256, in memory,
 * keyed by the stored hash) so that a client asking for tokens over and over pays scrypt once; a wrong
 * secret always pays it.
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

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const remembered = verified.get(stored);
  const digest = sha256(secret);
  if (remembered && crypto.timingSafeEqual(remembered, digest)) return true;
  if (!isSecretHash(stored)) return false;
  const m = FORMAT.exec(stored)!;
  const salt = Buffer.from(m[4]!, 'base64url');
  const want = Buffer.from(m[5]!, 'base64url');
  let got: Buffer;
  try {
    got = await scrypt(secret, salt, Number(m[1]), Number(m[2]), Number(m[3]), want.length);
  } catch {
    return false;
  }
  const ok = got.length === want.length && crypto.timingSafeEqual(got, want);
  if (ok) {
    if (verified.size >= MAX_REMEMBERED) verified.delete(verified.keys().next().value!);
    verified.set(stored, digest);
  }
  return ok;
}

/** Constant-time comparison of two clear strings (configured credentials). */
export function safeEqual(a: string, b: string): boolean {
  const da = sha256(a), db = sha256(b);
  return crypto.timingSafeEqual(da, db) && a.length === b.length;
}
