import { InvalidClientError, InvalidRequestError } from './errors.js';

export interface PresentedCredentials {
  readonly id: string;
  readonly secret: string;
  /** HTTP Basic (RFC 6749 §2.3.1, preferred) or client_id/client_secret form parameters. */
  readonly method: 'basic' | 'body';
}

/** RFC 6749 §3.2: no parameter may appear twice. */
export function rejectRepeatedParameters(form: URLSearchParams): void {
  const seen = new Set<string>();
  for (const k of form.keys()) {
    if (seen.has(k)) throw new InvalidRequestError(`parameter "${k}" is repeated`);
    seen.add(k);
  }
}

function formDecode(s: string): string {
  try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return s; }
}

/**
 * `Authorization: Basic base64(id:secret)`; id and secret are form-urlencoded first (RFC 6749 §2.3.1), which
 * changes nothing for plain ids. undefined when the header is absent or uses another scheme; throws
 * invalid_client when it is Basic but unreadable.
 */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | undefined {
  if (!authorization) return undefined;
  const m = /^\s*basic\s+(\S*)\s*$/i.exec(authorization);
  if (!m) return undefined;
  const b64 = m[1]!;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length === 0) throw new InvalidClientError('malformed HTTP Basic credentials');
  const text = Buffer.from(b64, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw new InvalidClientError('malformed HTTP Basic credentials: no ":" between id and secret');
  return { id: formDecode(text.slice(0, colon)), secret: formDecode(text.slice(colon + 1)) };
}

/**
 * The client's credentials, from HTTP Basic or from the body (client_id and client_secret), never both
 * (RFC 6749 §2.3: one method per request). undefined when there are none.
 */
export function presentedCredentials(form: URLSearchParams, authorization: string | undefined): PresentedCredentials | undefined {
  const basic = basicCredentials(authorization);
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (basic) {
    if (bodySecret !== null) throw new InvalidRequestError('the client authenticated twice: HTTP Basic and client_secret in the body; use one');
    if (bodyId !== null && bodyId !== basic.id) throw new InvalidRequestError('client_id in the body differs from the HTTP Basic client id');
    return { ...basic, method: 'basic' };
  }
  if (bodyId !== null && bodySecret !== null) return { id: bodyId, secret: bodySecret, method: 'body' };
  if (bodyId !== null) throw new InvalidClientError('client_secret is missing: Sluice has no public clients');
  return undefined;
}
