/**
 * Whether a request method is idempotent (RFC 9110 §9.2.2: PUT, DELETE and the safe methods GET, HEAD, OPTIONS,
 * TRACE): the only requests the sender sends again on its own, and only when a kept connection closed before
 * any of the reply came (exchange.ts). RFC 9112 §9.3.1: "A proxy MUST NOT automatically retry non-idempotent
 * requests", since the backend may have acted on one it never answered.
 */
export function isIdempotent(method: string): boolean {
  switch (method) {
    case 'GET': case 'HEAD': case 'PUT': case 'DELETE': case 'OPTIONS': case 'TRACE':
      return true;
    default:
      return false;
  }
}
