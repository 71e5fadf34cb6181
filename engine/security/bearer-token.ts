/** `Authorization: Bearer <token>` as RFC 6750 writes it, any case and spacing; the token has no whitespace. */
export const BEARER = /^\s*Bearer\s+(\S+)\s*$/i;

/**
 * The token of a header value in the shape nearly every client sends (`Bearer ` then the token, maybe
 * trailing blanks), without the regular expression: on a 1 KB JWT the regex scan cost as much as the
 * rest of the authentication. Only a candidate: it may contain whitespace, so it is good for a cache
 * lookup (whatever the cache holds passed BEARER) and nothing else; null sends the caller to BEARER.
 */
export function bearerCandidate(value: string): string | null {
  if (!value.startsWith('Bearer ')) return null;
  let start = 7;
  let end = value.length;
  while (start < end && value.charCodeAt(start) === 32) start++;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--;
  return end > start ? value.slice(start, end) : null;
}
