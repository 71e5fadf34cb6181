import { importJWK, jwtVerify, SignJWT, errors, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import crypto from 'node:crypto';

/**
 * Piscina task of the gateway: the CPU-heavy token work kept off the io threads (a token-cache miss
 * verifies a signature; a backend JWT is signed once per token and API).
 */
export interface VerifyTask {
  readonly kind: 'verify';
  readonly token: string;
  readonly jwk: JWK;
  readonly issuer: string;
  readonly algorithms: readonly string[];
  readonly clockSkewSec: number;
  /** An external issuer's tokens may have to name an audience ([[apim.jwt.issuer]] audience). */
  readonly audience?: string;
}

export interface SignTask {
  readonly kind: 'sign';
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly keyPem: string;
  readonly encoding: 'base64' | 'base64url';
  readonly sign: boolean;
}

export type VerifyResult = { readonly ok: true; readonly claims: JWTPayload } | { readonly ok: false; readonly reason: string };
export type SignResult = { readonly ok: true; readonly jwt: string } | { readonly ok: false; readonly reason: string };

const keys = new Map<string, CryptoKey | Uint8Array>();

async function keyFor(jwk: JWK, alg: string): Promise<CryptoKey | Uint8Array> {
  const id = `${jwk.kid ?? ''}|${jwk.n ?? jwk.x ?? ''}|${alg}`;
  let k = keys.get(id);
  if (!k) {
    k = await importJWK(jwk, alg);
    if (keys.size > 256) keys.clear();
    keys.set(id, k);
  }
  return k;
}

function reasonOf(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the access token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `the access token's ${err.claim} claim is not acceptable`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the access token signature does not verify';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the access token algorithm is not allowed';
  return 'the access token cannot be validated';
}

async function verify(t: VerifyTask): Promise<VerifyResult> {
  try {
    const header = JSON.parse(Buffer.from(t.token.split('.')[0]!, 'base64url').toString('utf8')) as { alg?: string };
    const key = await keyFor(t.jwk, header.alg ?? 'RS256');
    const { payload } = await jwtVerify(t.token, key, {
      issuer: t.issuer, algorithms: [...t.algorithms], clockTolerance: t.clockSkewSec, ...(t.audience !== undefined ? { audience: t.audience } : {}),
    });
    return { ok: true, claims: payload };
  } catch (err) {
    return { ok: false, reason: reasonOf(err) };
  }
}

function encodeSegment(value: unknown, encoding: 'base64' | 'base64url'): string {
  return Buffer.from(JSON.stringify(value)).toString(encoding);
}

async function sign(t: SignTask): Promise<SignResult> {
  try {
    if (t.encoding === 'base64url' && t.sign) {
      const key = crypto.createPrivateKey(t.keyPem);
      const jwt = await new SignJWT(t.payload).setProtectedHeader({ ...t.header, alg: 'RS256' } as { alg: string }).sign(key);
      return { ok: true, jwt };
    }
    // The reference system's default encodes the segments with standard base64 (padding kept).
    const head = encodeSegment({ ...t.header, alg: t.sign ? 'RS256' : 'none' }, t.encoding);
    const body = encodeSegment(t.payload, t.encoding);
    if (!t.sign) return { ok: true, jwt: `${head}.${body}.` };
    const sig = crypto.sign('sha256', Buffer.from(`${head}.${body}`), crypto.createPrivateKey(t.keyPem)).toString(t.encoding);
    return { ok: true, jwt: `${head}.${body}.${sig}` };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

export default function run(task: VerifyTask | SignTask): Promise<VerifyResult | SignResult> {
  return task.kind === 'verify' ? verify(task) : sign(task);
}
