/**
 * A request head as the front door hands it to the gateway: what llhttp parsed (strictly) and what the
 * door made of the target. One is created per request; nothing is added to it later (a fixed shape).
 */
export class RequestHead {
  /** As sent (llhttp accepts only tokens; methods are case-sensitive, RFC 9110 §9.1). */
  method = '';
  /** The request target as sent (origin-form, absolute-form or `*`). */
  target = '';
  /** The normalised path (no query): what routing, scopes, throttling, logs and the backend use. */
  path = '';
  /** The query without `?`, untouched; '' when none. */
  query = '';
  /** Fewest segments left after a `..` was resolved; -1: the target had no `..` (request-target.ts). */
  minDepth = -1;
  /** Flat [name, value, ...], names lower-cased, values as sent (latin1). */
  headers: string[] = [];
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor = 1;
  /** Content-Length, -1 when absent. */
  contentLength = -1;
  chunked = false;
  /** The client wants the connection kept open after this exchange. */
  keepAlive = true;
  /** `Expect: 100-continue` was sent. */
  expectContinue = false;
  /** A WebSocket upgrade request (GET with `Upgrade: websocket` and `Connection: upgrade`). */
  websocket = false;
  /** Absolute-form: the authority it named (the Host header must agree), '' otherwise. */
  authority = '';

  /** A head of its own with the same fields (its own array of them). */
  copy(): RequestHead {
    const h = new RequestHead();
    h.method = this.method; h.target = this.target; h.path = this.path; h.query = this.query; h.minDepth = this.minDepth;
    h.headers = this.headers.slice(); h.minor = this.minor; h.contentLength = this.contentLength; h.chunked = this.chunked;
    h.keepAlive = this.keepAlive; h.expectContinue = this.expectContinue; h.websocket = this.websocket; h.authority = this.authority;
    return h;
  }

  get hasBody(): boolean {
    return this.contentLength > 0 || this.chunked;
  }

  header(name: string): string | undefined {
    const h = this.headers;
    for (let i = 0; i < h.length; i += 2) if (h[i] === name) return h[i + 1];
    return undefined;
  }
}
