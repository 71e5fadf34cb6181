import { family } from './error-entry.js';
import { FaultSequence as S } from './fault-sequences.js';

/**
 * What the front door answers when it refuses a request before any gateway phase runs
 * (transport/front-door/refusals.ts says which rule maps to which). Seed 000's generic code 400 covers
 * malformed requests; the other codes are HTTP's own statuses, used as codes the same way. Every refusal is
 * answered with the fault body and `Connection: close`, and the connection closes after it. The description
 * the client gets names the rule that refused the request.
 */
export const DoorError = family({
  MALFORMED: {
    code: 400, status: 400, sequence: S.FAULT, message: 'Bad Request', description: 'The request is not valid HTTP/1.1',
    when: 'a malformed request line, header syntax or framing (CL with TE, differing CLs, obs-fold, bare CR or LF, controls), a target that cannot be normalised safely (encoded `/` or `\\`, `%00`, invalid encodings), a missing, repeated or mismatching Host',
  },
  UNSUPPORTED_CODING: {
    code: 501, status: 501, sequence: S.FAULT, message: 'Not Implemented', description: 'The transfer coding is not supported',
    when: 'a Transfer-Encoding other than exactly `chunked` (RFC 9112 §6.1)',
  },
  VERSION: {
    code: 505, status: 505, sequence: S.FAULT, message: 'HTTP Version Not Supported', description: 'Only HTTP/1.0 and HTTP/1.1 are served',
    when: 'an HTTP version other than 1.0 and 1.1',
  },
  TARGET_TOO_LONG: {
    code: 414, status: 414, sequence: S.FAULT, message: 'URI Too Long', description: 'The request target is too long',
    when: 'a request target longer than `[passthru_http] max_request_target_bytes`',
  },
  HEADERS_TOO_LARGE: {
    code: 431, status: 431, sequence: S.FAULT, message: 'Request Header Fields Too Large', description: 'The header section is too large',
    when: 'a header section larger than `max_request_header_bytes` or with more than `max_request_header_count` fields',
  },
  METHOD: {
    code: 405, status: 405, sequence: S.FAULT, message: 'Method Not Allowed', description: 'The gateway opens no tunnels',
    when: 'CONNECT',
  },
  EXPECTATION: {
    code: 417, status: 417, sequence: S.FAULT, message: 'Expectation Failed', description: 'Only Expect: 100-continue is understood',
    when: 'an Expect other than 100-continue (RFC 9110 §10.1.1)',
  },
  TIMEOUT: {
    code: 408, status: 408, sequence: S.FAULT, message: 'Request Timeout', description: 'The request did not arrive in time',
    when: 'the request head (`client_header_timeout`) or the next piece of its body (`client_body_timeout`) did not arrive in time',
  },
});

export type DoorErrorName = keyof typeof DoorError;
