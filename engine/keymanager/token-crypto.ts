import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** base64url SHA-256: the lookup key of every token in the store, and the id of opaque tokens. */
export function tokenHash(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** 256 random bits, base64url (43 characters): opaque access tokens and every refresh token. */
export function randomToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The file holding the AES-256-GCM key of apim.oauth_config.enable_token_encryption. */
export const ENCRYPTION_KEY_FILE = 'token-encryption.generated.key';

/**
 * How a token's text is kept in the store beside its hash (the hash is always there, for lookups):
 * - enable_token_hashing: not at all (null);
 * - enable_token_encryption: AES-256-GCM, `enc:v1:<iv>:<tag>:<ciphertext>` (base64url), with the key in
 *   <home>/repository/resources/security/token-encryption.generated.key (mode 0600, generated on first use);
 * - neither (the reference system's default): in clear.
 * Hashing wins when both are on.
 */
export class TokenCodec {
  private constructor(private readonly mode: 'clear' | 'hash' | 'encrypt', private readonly key: Buffer | undefined) {}

  static create(opts: { hash: boolean; encrypt: boolean; securityDir: string }): TokenCodec {
    if (opts.hash) return new TokenCodec('hash', undefined);
    if (opts.encrypt) return new TokenCodec('encrypt', loadOrCreateKey(path.join(opts.securityDir, ENCRYPTION_KEY_FILE)));
    return new TokenCodec('clear', undefined);
  }

  get storage(): 'clear' | 'hash' | 'encrypt' { return this.mode; }

  protect(token: string): string | null {
    if (this.mode === 'hash') return null;
    if (this.mode === 'clear') return token;
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.key!, iv);
    const ct = Buffer.concat([c.update(token, 'utf8'), c.final()]);
    return `enc:v1:${iv.toString('base64url')}:${c.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
  }

  /** The clear token, when the store kept one this codec can read. */
  reveal(stored: string | null): string | undefined {
    if (stored === null) return undefined;
    if (!stored.startsWith('enc:v1:')) return stored;
    if (!this.key) return undefined;
    const [, , iv, tag, ct] = stored.split(':');
    try {
      const d = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv!, 'base64url'));
      d.setAuthTag(Buffer.from(tag!, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct!, 'base64url')), d.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

function loadOrCreateKey(file: string): Buffer {
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file}: not a 256-bit key (base64); remove it to have a new one generated`);
    tightenMode(file);
    return key;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = crypto.randomBytes(32);
  fs.writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/** Private key files are kept 0600. */
export function tightenMode(file: string): boolean {
  try {
    const mode = fs.statSync(file).mode & 0o777;
    if (mode & 0o077) { fs.chmodSync(file, 0o600); return true; }
  } catch { /* reported by whoever reads it */ }
  return false;
}
