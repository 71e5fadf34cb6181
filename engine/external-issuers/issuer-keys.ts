import crypto from 'node:crypto';
import tls from 'node:tls';
import { exportJWK, type JWK } from 'jose';
import { Agent, request } from 'undici';
import type { ExternalIssuerView } from '../../conf/views/identity.js';

const FETCH_TIMEOUT_MS = 10_000;
const MAX_JWKS_BYTES = 512 * 1024;
/** An unknown kid fetches the JWKS again at most this often (a flood of forged kids costs one fetch a second). */
const MIN_REFETCH_MS = 1000;

/**
 * The signing keys of one external issuer ([[apim.jwt.issuer]]): its JWKS, fetched over HTTPS (trusting the
 * system's and the configured CA certificates), kept, fetched again every `jwks_refresh_interval` and on an
 * unknown kid (at most once a second); or its certificate, read once. A failed fetch keeps the keys it had.
 */
export class IssuerKeys {
  private keys: JWK[] = [];
  private fetchedAt = 0;
  private inflight: Promise<JWK[]> | undefined;
  private readonly dispatcher: Agent | undefined;

  constructor(readonly issuer: ExternalIssuerView, ca?: readonly string[]) {
    // The configured CA certificates are trusted beside the public roots, not instead of them.
    this.dispatcher = issuer.jwksUrl ? new Agent({ connect: { ...(ca && ca.length ? { ca: [...tls.rootCertificates, ...ca] } : {}), rejectUnauthorized: true } }) : undefined;
  }

  /** The keys now (fetched or read the first time). */
  async current(): Promise<JWK[]> {
    if (this.fetchedAt === 0) return this.refresh();
    return this.keys;
  }

  /**
   * Fetches again (an unknown kid, the periodic refresh); concurrent callers share one fetch. Within a second
   * of the last fetch the next one waits for the second to pass (a rotated key still arrives, a flood of
   * unknown kids still costs one fetch a second).
   */
  async refresh(): Promise<JWK[]> {
    this.inflight ??= (async () => {
      const wait = this.fetchedAt === 0 ? 0 : this.fetchedAt + MIN_REFETCH_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        this.keys = await this.load();
        return this.keys;
      } finally {
        this.fetchedAt = Date.now();
        this.inflight = undefined;
      }
    })();
    return this.inflight;
  }

  private async load(): Promise<JWK[]> {
    if (this.issuer.certificate) return [await certificateJwk(this.issuer.certificate)];
    if (!this.issuer.jwksUrl) throw new Error(`[[apim.jwt.issuer]] ${this.issuer.name}: neither jwks.url nor certificate`);
    const res = await request(this.issuer.jwksUrl, { dispatcher: this.dispatcher!, headersTimeout: FETCH_TIMEOUT_MS, bodyTimeout: FETCH_TIMEOUT_MS });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_JWKS_BYTES) { res.body.destroy(); throw new Error(`JWKS ${this.issuer.jwksUrl} is larger than ${MAX_JWKS_BYTES} bytes`); }
      chunks.push(c as Buffer);
    }
    if (res.statusCode !== 200) throw new Error(`JWKS ${this.issuer.jwksUrl} answered ${res.statusCode}`);
    const j = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { keys?: unknown };
    if (!Array.isArray(j.keys)) throw new Error(`JWKS ${this.issuer.jwksUrl} has no keys`);
    // Public signature keys only: a private or symmetric member is never used to verify.
    return (j.keys as JWK[]).filter((k) => k && typeof k === 'object' && (k.kty === 'RSA' || k.kty === 'EC' || k.kty === 'OKP') && k.d === undefined && (k.use === undefined || k.use === 'sig'));
  }

  close(): void {
    void this.dispatcher?.close();
  }
}

/** A PEM certificate or public key as a JWK. */
export async function certificateJwk(pem: string): Promise<JWK> {
  const key = pem.includes('BEGIN CERTIFICATE') ? new crypto.X509Certificate(pem).publicKey : crypto.createPublicKey(pem);
  return exportJWK(key);
}
