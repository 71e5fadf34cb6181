import crypto from 'node:crypto';

/**
 * OpenID Connect Core §3.1.3.6: at_hash is the base64url of the left half of the SHA-256 of the access
 * token's ASCII text (RS256 uses SHA-256).
 */
export function atHash(accessToken: string): string {
  return crypto.createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}
