/**
 * Errors of the servlet transport, each with a stable code and the HTTP status it answers with. A handler
 * may throw an HttpError to answer with that status; anything else thrown is a 500 (and is logged).
 */
export type ServletErrorCode =
  | 'SLUICE_SERVLET_BODY_TOO_LARGE'
  | 'SLUICE_SERVLET_BODY_MALFORMED'
  | 'SLUICE_SERVLET_BODY_ABORTED'
  | 'SLUICE_SERVLET_UNSUPPORTED_MEDIA_TYPE'
  | 'SLUICE_SERVLET_NOT_FOUND'
  | 'SLUICE_SERVLET_METHOD_NOT_ALLOWED'
  | 'SLUICE_SERVLET_HTTP';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: ServletErrorCode = 'SLUICE_SERVLET_HTTP',
    /** Extra response headers (Allow on a 405). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The body is larger than the route's limit (413); the connection is closed after the answer. */
export class BodyTooLargeError extends HttpError {
  constructor(readonly limit: number) {
    super(413, `request body larger than ${limit} bytes`, 'SLUICE_SERVLET_BODY_TOO_LARGE');
    this.name = 'BodyTooLargeError';
  }
}

/** The body cannot be read as the content type says (bad JSON, bad form encoding, bad UTF-8). */
export class BodyMalformedError extends HttpError {
  constructor(message: string) {
    super(400, message, 'SLUICE_SERVLET_BODY_MALFORMED');
    this.name = 'BodyMalformedError';
  }
}

/** The client went away (or timed out) before the body was complete: nobody is left to answer. */
export class BodyAbortedError extends HttpError {
  constructor(message = 'the client closed the connection before the body was complete') {
    super(400, message, 'SLUICE_SERVLET_BODY_ABORTED');
    this.name = 'BodyAbortedError';
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(readonly got: string | undefined, readonly want: string) {
    super(415, `Content-Type must be ${want}${got ? `, got ${got}` : ''}`, 'SLUICE_SERVLET_UNSUPPORTED_MEDIA_TYPE');
    this.name = 'UnsupportedMediaTypeError';
  }
}
