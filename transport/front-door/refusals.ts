/**
 * Why the front door refused a request before any gateway phase ran, and the answer each gets: a status,
 * a fault code for the fault body of seed 000, a message and a description. Every refusal is answered
 * (the fault body, `Connection: close`) and the connection is closed after it: where the next request
 * would start is no longer known. Seed 000's generic sequence code 400 ("request error from the client")
 * covers malformed requests; the other statuses are HTTP's own, used as codes the same way.
 */
export const Refusal = {
  /** Malformed request line, header syntax or framing, a target that cannot be normalised safely, Host. */
  BAD_REQUEST: 0,
  /** Transfer-Encoding names a coding other than chunked (RFC 9112 §6.1: 501). */
  UNSUPPORTED_CODING: 1,
  /** An HTTP version other than 1.0 and 1.1. */
  VERSION: 2,
  /** The request target is longer than [passthru_http] max_request_target_bytes. */
  TARGET_TOO_LONG: 3,
  /** The header section is larger than max_request_header_bytes or has more than max_request_header_count fields. */
  HEADERS_TOO_LARGE: 4,
  /** CONNECT (the gateway opens no tunnels). */
  METHOD: 5,
  /** An Expect other than 100-continue (RFC 9110 §10.1.1). */
  EXPECTATION: 6,
  /** The request head (client_header_timeout) or the next piece of its body (client_body_timeout) did not arrive in time. */
  HEAD_TIMEOUT: 7,
  /** The client ended its side of the connection before the request body was complete (seed 000's 102511). */
  INCOMPLETE_PAYLOAD: 8,
} as const;
export type Refusal = (typeof Refusal)[keyof typeof Refusal];

export interface RefusalInfo {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

/** The catalogue: what each refusal answers (the description says which rule). */
export const REFUSALS: Readonly<Record<Refusal, RefusalInfo>> = {
  [Refusal.BAD_REQUEST]: { status: 400, code: 400, message: 'Bad Request' },
  [Refusal.UNSUPPORTED_CODING]: { status: 501, code: 501, message: 'Not Implemented' },
  [Refusal.VERSION]: { status: 505, code: 505, message: 'HTTP Version Not Supported' },
  [Refusal.TARGET_TOO_LONG]: { status: 414, code: 414, message: 'URI Too Long' },
  [Refusal.HEADERS_TOO_LARGE]: { status: 431, code: 431, message: 'Request Header Fields Too Large' },
  [Refusal.METHOD]: { status: 405, code: 405, message: 'Method Not Allowed' },
  [Refusal.EXPECTATION]: { status: 417, code: 417, message: 'Expectation Failed' },
  [Refusal.HEAD_TIMEOUT]: { status: 408, code: 408, message: 'Request Timeout' },
  [Refusal.INCOMPLETE_PAYLOAD]: { status: 400, code: 102511, message: 'Incomplete payload' },
};

/** A refusal with the rule that caused it, for the fault's description and the log. */
export class DoorRefusal {
  constructor(readonly refusal: Refusal, readonly description: string) {}
  get info(): RefusalInfo { return REFUSALS[this.refusal]; }
}
