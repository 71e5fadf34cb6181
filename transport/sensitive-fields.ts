/**
 * What never reaches an access log, an analytics event, a span or a log mediator's line in clear:
 * credentials in query parameters and in headers. The gateway never copies the Authorization header
 * anywhere; these rules cover the other places a client may put a credential. Here, below mediation and the
 * operations code, so that both read the same list.
 */

/** Query parameter names whose values are masked (case-insensitive). */
const SECRET_PARAMS = /^(access_token|refresh_token|id_token|token|apikey|api_key|api-key|client_secret|client_assertion|password|passwd|secret|code|key|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|auth|authorization|session|sessionid|jsessionid)$/i;

export const MASK = '********';

/** Header names (lower case) whose values are masked when headers are copied (analytics send_headers, log mediator). */
export const SENSITIVE_HEADERS: readonly string[] = [
  'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'apikey', 'api_key', 'api-key', 'x-api-key',
  'internal-key', 'x-jwt-assertion', 'x-amz-security-token', 'ssl-client-cert', 'x-wso2-client-certificate',
];

/** A query string (without `?`) with the values of credential parameters replaced by the mask. */
export function redactQuery(query: string): string {
  if (query === '') return '';
  let changed = false;
  const parts = query.split('&');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    let name = p.slice(0, eq);
    try { name = decodeURIComponent(name.replace(/\+/g, ' ')); } catch { /* keep raw */ }
    if (SECRET_PARAMS.test(name)) { parts[i] = `${p.slice(0, eq)}=${MASK}`; changed = true; }
  }
  return changed ? parts.join('&') : query;
}

/** A URL path plus redacted query, for logs. */
export function loggablePath(path: string, query: string): string {
  return query === '' ? path : `${path}?${redactQuery(query)}`;
}
