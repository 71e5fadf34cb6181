import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, errors, type JWK, type JWTPayload } from 'jose';
import type { ExternalIssuerView } from '../../conf/views/identity.js';
import { IssuerKeys } from './issuer-keys.js';

/** Asymmetric algorithms only: `none` and HMAC (a public key used as a secret) never verify. */
export const ISSUER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const MAX_REMEMBERED_JTI = 100_000;

export class AssertionRejected extends Error {
  constructor(message: string) { super(message); this.name = 'AssertionRejected'; }
}

/** The JWK that signed a token, chosen by kid (or the only key when there is no kid). */
export function keyFor(keys: readonly JWK[], kid: string | undefined): JWK | undefined {
  if (kid !== undefined) return keys.find((k) => k.kid === kid);
  return keys.length === 1 ? keys[0] : undefined;
}

/**
 * The [[apim.jwt.issuer]] entries as issuers of assertions for the jwt-bearer grant (RFC 7523 §3): the
 * assertion's `iss` picks the issuer, its keys verify the signature (asymmetric algorithms only), `aud` must
 * name this key manager, `exp` must be present and not further than the configured lifetime, `sub` present;
 * a `jti` seen before (until its exp) is a replay.
 */
export class TrustedIssuers {
  private readonly byIss = new Map<string, IssuerKeys>();
  private readonly seen = new Map<string, number>();

  constructor(views: readonly ExternalIssuerView[], ca?: readonly string[]) {
    for (const v of views) if (v.jwksUrl || v.certificate) this.byIss.set(v.issuer, new IssuerKeys(v, ca));
  }

  get size(): number { return this.byIss.size; }

  async verify(assertion: string, o: { audiences: readonly string[]; maxLifetimeMs: number; clockSkewSec: number; now: number }): Promise<{ issuer: ExternalIssuerView; claims: JWTPayload }> {
    let header: { alg?: string; kid?: string };
    let unverified: JWTPayload;
    try {
      header = decodeProtectedHeader(assertion) as { alg?: string; kid?: string };
      unverified = decodeJwt(assertion);
    } catch {
      throw new AssertionRejected('the assertion is not a JWT');
    }
    if (!header.alg || !ISSUER_ALGORITHMS.includes(header.alg)) throw new AssertionRejected(`the assertion's algorithm ${header.alg ?? '(none)'} is not accepted`);
    const keys = typeof unverified.iss === 'string' ? this.byIss.get(unverified.iss) : undefined;
    if (!keys) throw new AssertionRejected('the assertion\'s issuer is not trusted ([[apim.jwt.issuer]])');
    let jwk = keyFor(await keys.current(), header.kid);
    if (!jwk) jwk = keyFor(await keys.refresh(), header.kid);
    if (!jwk) throw new AssertionRejected('the assertion was signed with a key its issuer does not publish');
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(assertion, await importJWK(jwk, header.alg), {
        issuer: keys.issuer.issuer, audience: [...o.audiences], algorithms: [header.alg], clockTolerance: o.clockSkewSec,
        requiredClaims: ['exp', 'sub'], currentDate: new Date(o.now),
      }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new AssertionRejected('the assertion has expired');
      if (err instanceof errors.JWTClaimValidationFailed) throw new AssertionRejected(`the assertion's ${err.claim} claim is not acceptable`);
      throw new AssertionRejected('the assertion\'s signature does not verify');
    }
    if (claims.exp! * 1000 - o.now > o.maxLifetimeMs) throw new AssertionRejected('the assertion lives longer than this key manager accepts (sluice.oauth.jwt_bearer_max_lifetime)');
    if (typeof claims.jti === 'string') this.remember(`${claims.iss}\n${claims.jti}`, claims.exp! * 1000, o.now);
    return { issuer: keys.issuer, claims };
  }

  private remember(id: string, exp: number, now: number): void {
    const prev = this.seen.get(id);
    if (prev !== undefined && prev > now) throw new AssertionRejected('the assertion was used before (its jti is remembered until it expires)');
    if (this.seen.size >= MAX_REMEMBERED_JTI) {
      for (const [k, e] of this.seen) if (e <= now) this.seen.delete(k);
      // Still full of live assertions: refuse rather than forget one (a replay window would open).
      if (this.seen.size >= MAX_REMEMBERED_JTI) throw new AssertionRejected('too many assertions in flight; try again');
    }
    this.seen.set(id, exp);
  }

  close(): void {
    for (const k of this.byIss.values()) k.close();
  }
}
