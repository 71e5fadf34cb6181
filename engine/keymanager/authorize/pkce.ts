import crypto from 'node:crypto';

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. The challenge has the same shape (S256: 43 characters). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export type ChallengeMethod = 'S256' | 'plain';

export function isWellFormedVerifier(v: string): boolean {
  return VERIFIER.test(v);
}

/** A challenge as the authorization request may carry it: S256 is exactly 43 base64url characters. */
export function isWellFormedChallenge(challenge: string, method: ChallengeMethod): boolean {
  return method === 'S256' ? /^[A-Za-z0-9_-]{43}$/.test(challenge) : VERIFIER.test(challenge);
}

export function s256(verifier: string): string {
  return crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 §4.6, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: ChallengeMethod): boolean {
  const computed = Buffer.from(method === 'S256' ? s256(verifier) : verifier);
  const want = Buffer.from(challenge);
  return computed.length === want.length && crypto.timingSafeEqual(computed, want);
}
