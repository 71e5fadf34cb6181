/**
 * The faults of the secure-by-default limits (docs/security.md): a body or a held response over its cap,
 * and a header that mediation built and no head may carry. Request-side problems are the client's (4xx);
 * response-side ones come from the backend's response (502, 101510). Descriptions never echo the value.
 */
import { ApiHandlerCode, handlerError } from '../../mediation/index.js';
import { TransportErrorCode } from '../../transport/transport-errors.js';
import type { FaultInfo } from './fault.js';

const tooLarge = handlerError(ApiHandlerCode.CONTENT_TOO_LARGE)!;
const badRequest = handlerError(ApiHandlerCode.BAD_REQUEST)!;
const RESPONSE_FAILED = 'Response processing failed';
const WHY = 'holds a character a header may not carry (CR, LF, NUL, another control, or a character above U+00FF)';

/** 413: the request body is over the cap of what this API reads whole. */
export function requestTooLarge(limit: number, sequence: string): FaultInfo {
  return {
    code: tooLarge.code, status: tooLarge.status, message: tooLarge.message, sequence,
    description: `The request body is larger than the ${limit} bytes the gateway reads whole for this API`,
  };
}

/** 502: the backend's response is over the cap of what the API's out sequence may hold. */
export function responseTooLarge(limit: number, sequence: string): FaultInfo {
  return {
    code: TransportErrorCode.RESPONSE_PROCESSING_FAILURE, status: 502, message: RESPONSE_FAILED, sequence,
    description: `The backend's response is larger than the ${limit} bytes the out sequence of this API may hold`,
  };
}

/** 400: a header built by mediation from the request (or the request's own, once mediated) cannot be sent. */
export function unsafeRequestHeader(sequence: string): FaultInfo {
  return { code: badRequest.code, status: badRequest.status, message: badRequest.message, sequence, description: `A header built by mediation from the request ${WHY}` };
}

/** 502: a header built by mediation from the backend's response cannot be sent to the client. */
export function unsafeResponseHeader(sequence: string): FaultInfo {
  return { code: TransportErrorCode.RESPONSE_PROCESSING_FAILURE, status: 502, message: RESPONSE_FAILED, sequence, description: `A header built by mediation from the response ${WHY}` };
}
