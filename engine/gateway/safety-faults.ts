/**
 * The faults of the secure-by-default limits (docs/security.md): a header that mediation built and no head
 * may carry. Request-side problems are the client's (4xx); response-side ones come from the backend's
 * response (502, 101510). Descriptions never echo the value.
 */
import { ApiHandlerCode, handlerError } from '../../mediation/index.js';
import { TransportErrorCode } from '../../transport/transport-errors.js';
import type { FaultInfo } from './fault.js';

const badRequest = handlerError(ApiHandlerCode.BAD_REQUEST)!;
const RESPONSE_FAILED = 'Response processing failed';
const WHY = 'holds a character a header may not carry (CR, LF, NUL, another control, or a character above U+00FF)';

/** 400: a header built by mediation from the request (or the request's own, once mediated) cannot be sent. */
export function unsafeRequestHeader(sequence: string): FaultInfo {
  return { code: badRequest.code, status: badRequest.status, message: badRequest.message, sequence, description: `A header built by mediation from the request ${WHY}` };
}

/** 502: a header built by mediation from the backend's response cannot be sent to the client. */
export function unsafeResponseHeader(sequence: string): FaultInfo {
  return { code: TransportErrorCode.RESPONSE_PROCESSING_FAILURE, status: 502, message: RESPONSE_FAILED, sequence, description: `A header built by mediation from the response ${WHY}` };
}
