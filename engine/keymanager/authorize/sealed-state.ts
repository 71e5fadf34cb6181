import crypto from 'node:crypto';

/**
 * State the login and consent pages hand to the browser and get back (the validated authorization
 * request, then the authenticated user), sealed with AES-256-GCM: the browser can neither read nor change
 * it, and the key manager keeps nothing per page view (no table to fill by loading the page in a loop).
 * Each sealed value is bound to a purpose (login or consent), an expiry, and the hash of the browser's
 * binding cookie: a form posted from another browser (login CSRF) does not unseal.
 */
export class StateSealer {
  constructor(private readonly key: Buffer, private readonly now: () => number = Date.now) {
    if (key.length !== 32) throw new Error('the state key must be 256 bits');
  }

  seal(purpose: string, binding: string, ttlMs: number, value: unknown): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(`${purpose}\n${bindingHash(binding)}`));
    const body = Buffer.from(JSON.stringify({ exp: this.now() + ttlMs, v: value }), 'utf8');
    const ct = Buffer.concat([c.update(body), c.final()]);
    return `${iv.toString('base64url')}.${ct.toString('base64url')}.${c.getAuthTag().toString('base64url')}`;
  }

  /** The value, or why not: `invalid` (tampered, another purpose, another browser) or `expired`. */
  unseal<T>(purpose: string, binding: string, sealed: string): { ok: true; value: T } | { ok: false; why: 'invalid' | 'expired' } {
    const parts = sealed.split('.');
    if (parts.length !== 3 || sealed.length > 16384) return { ok: false, why: 'invalid' };
    try {
      const d = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(parts[0]!, 'base64url'));
      d.setAAD(Buffer.from(`${purpose}\n${bindingHash(binding)}`));
      const tag = Buffer.from(parts[2]!, 'base64url');
      if (tag.length !== 16) return { ok: false, why: 'invalid' };
      d.setAuthTag(tag);
      const text = Buffer.concat([d.update(Buffer.from(parts[1]!, 'base64url')), d.final()]).toString('utf8');
      const { exp, v } = JSON.parse(text) as { exp: number; v: T };
      if (typeof exp !== 'number' || exp <= this.now()) return { ok: false, why: 'expired' };
      return { ok: true, value: v };
    } catch {
      return { ok: false, why: 'invalid' };
    }
  }
}

export function bindingHash(binding: string): string {
  return crypto.createHash('sha256').update(binding, 'utf8').digest('base64url');
}
