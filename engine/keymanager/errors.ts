/**
 * Token-API errors as typed classes carrying the RFC 6749 §5.2 / RFC 7009 §2.2.1 error code, the HTTP
 * status and the JSON body. The key manager's own endpoints render them directly; the gateway's `/token`
 * front renders them through the `_token_fault_` sequence using `faultProperties()`.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_token_type'
  | 'invalid_client_metadata'
  | 'server_error'
  | 'temporarily_unavailable';

/** The fault sequence that renders token-API errors at the gateway (seed 000, Errors). */
export const TOKEN_FAULT_SEQUENCE = '_token_fault_';

export const WWW_AUTHENTICATE = 'Basic realm="sluice"';

/** Headers every token-API answer carries (RFC 6749 §5.1 and §5.2). */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-store', pragma: 'no-cache' };

export class OAuthError extends Error {
  readonly faultSequence = TOKEN_FAULT_SEQUENCE;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }

  /** The RFC 6749 §5.2 JSON body. */
  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }

  /** Message-context properties for the `_token_fault_` sequence (the mediation engine's names). */
  faultProperties(): { ERROR_CODE: number; ERROR_MESSAGE: string; ERROR_DETAIL: string; HTTP_SC: number } {
    return { ERROR_CODE: this.status, ERROR_MESSAGE: this.error, ERROR_DETAIL: this.description, HTTP_SC: this.status };
  }
}

/** Missing, repeated or malformed parameter; wrong content type; more than one client authentication. */
export class InvalidRequestError extends OAuthError {
  constructor(description: string) { super('invalid_request', description, 400); this.name = 'InvalidRequestError'; }
}

/** Client authentication failed: unknown client, wrong secret, no credentials. 401 with WWW-Authenticate. */
export class InvalidClientError extends OAuthError {
  constructor(description = 'client authentication failed') {
    super('invalid_client', description, 401, { 'www-authenticate': WWW_AUTHENTICATE });
    this.name = 'InvalidClientError';
  }
}

/** Bad resource owner credentials; a refresh token that is unknown, used, revoked, expired or another client's. */
export class InvalidGrantError extends OAuthError {
  constructor(description: string) { super('invalid_grant', description, 400); this.name = 'InvalidGrantError'; }
}

/** The client may not use this grant (not in its key's grant_types), or may not act on this token. */
export class UnauthorizedClientError extends OAuthError {
  constructor(description: string) { super('unauthorized_client', description, 400); this.name = 'UnauthorizedClientError'; }
}

/** Unknown grant, a grant Sluice does not implement, or one switched off by oauth.grant_type.<grant>.enable. */
export class UnsupportedGrantTypeError extends OAuthError {
  constructor(description: string) { super('unsupported_grant_type', description, 400); this.name = 'UnsupportedGrantTypeError'; }
}

/** Malformed scope, or a refresh asking for more than the original grant. */
export class InvalidScopeError extends OAuthError {
  constructor(description: string) { super('invalid_scope', description, 400); this.name = 'InvalidScopeError'; }
}

/** RFC 7009 §2.2.1. */
export class UnsupportedTokenTypeError extends OAuthError {
  constructor(description: string) { super('unsupported_token_type', description, 400); this.name = 'UnsupportedTokenTypeError'; }
}

/** RFC 7591 §3.2.2: bad client registration request. */
export class InvalidClientMetadataError extends OAuthError {
  constructor(description: string, status = 400) { super('invalid_client_metadata', description, status); this.name = 'InvalidClientMetadataError'; }
}

export class ServerError extends OAuthError {
  constructor(description: string) { super('server_error', description, 500); this.name = 'ServerError'; }
}

export class TemporarilyUnavailableError extends OAuthError {
  constructor(description: string) { super('temporarily_unavailable', description, 503); this.name = 'TemporarilyUnavailableError'; }
}

/**
 * Too many failed authentications of this identity from this address (engine/keymanager/auth-backoff.ts):
 * 429 with Retry-After, answered before the secret is checked. The error code is the one a wrong secret
 * gets (invalid_client, or invalid_grant for a resource owner), so clients keep their handling.
 */
export class TooManyFailuresError extends OAuthError {
  constructor(error: 'invalid_client' | 'invalid_grant', readonly retryAfterSec: number) {
    super(error, `too many failed authentications from this address; retry in ${retryAfterSec} s`, 429, { 'retry-after': String(retryAfterSec) });
    this.name = 'TooManyFailuresError';
  }
}

/** Password hashing is at its bound ([sluice.authentication] max_*_hashes): 503 with Retry-After. */
export class HashingBusyError extends OAuthError {
  constructor(description: string) {
    super('temporarily_unavailable', description, 503, { 'retry-after': '1' });
    this.name = 'HashingBusyError';
  }
}
