import { ApiHandlerError } from '../../errors/api-handler.js';
import { faultOf, type ErrorEntry, type FaultInfo } from '../../errors/error-entry.js';
import { DoorError } from '../../errors/front-door.js';
import type { DoorConfig } from '../../conf/views/front-door.js';

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

/** The catalogue's entry each refusal answers with (the description the client gets says which rule). */
export const REFUSALS: Readonly<Record<Refusal, ErrorEntry>> = {
  [Refusal.BAD_REQUEST]: DoorError.MALFORMED,
  [Refusal.UNSUPPORTED_CODING]: DoorError.UNSUPPORTED_CODING,
  [Refusal.VERSION]: DoorError.VERSION,
  [Refusal.TARGET_TOO_LONG]: DoorError.TARGET_TOO_LONG,
  [Refusal.HEADERS_TOO_LARGE]: DoorError.HEADERS_TOO_LARGE,
  [Refusal.METHOD]: DoorError.METHOD,
  [Refusal.EXPECTATION]: DoorError.EXPECTATION,
  [Refusal.HEAD_TIMEOUT]: DoorError.TIMEOUT,
  [Refusal.INCOMPLETE_PAYLOAD]: ApiHandlerError.INCOMPLETE_PAYLOAD,
};

/** A refusal with the rule that caused it, for the fault's description and the log. */
export class DoorRefusal {
  constructor(readonly refusal: Refusal, readonly description: string) {}
  get info(): ErrorEntry { return REFUSALS[this.refusal]; }

  /** The fault the refusal answers with: its entry, with the rule as the description. */
  get fault(): FaultInfo { return faultOf(REFUSALS[this.refusal], { description: this.description }); }
}

/** llhttp's error codes the door answers with something other than 400. */
export function refusalOfParseError(err: Error & { code?: string; reason?: string }, cfg: DoorConfig): DoorRefusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DoorRefusal(Refusal.HEADERS_TOO_LARGE, `The request head is larger than ${cfg.maxTargetBytes + cfg.maxHeaderBytes} bytes`);
    case 'HPE_PAUSED_H2_UPGRADE':
      return new DoorRefusal(Refusal.VERSION, 'HTTP/2 is not served on this port; use HTTP/1.1');
    case 'HPE_INVALID_VERSION':
      if (err.reason === 'Invalid HTTP version') return new DoorRefusal(Refusal.VERSION, 'Only HTTP/1.0 and HTTP/1.1 are served');
      break;
  }
  return new DoorRefusal(Refusal.BAD_REQUEST, `Malformed request: ${err.reason ?? err.message}`);
}
