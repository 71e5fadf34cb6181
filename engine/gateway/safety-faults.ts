/**
 * The faults of the secure-by-default limits (docs/security.md): a body or a held response over its cap,
 * and a header that mediation built and no head may carry. Request-side problems are the client's (4xx);
 * response-side ones come from the backend's response (502, 101510). They run the API's fault sequence;
 * descriptions never echo the value.
 */
import { faultOf, type FaultInfo } from '../../errors/error-entry.js';
import { GatewayError } from '../../errors/gateway.js';

/** 413: the request body is over the cap of what this API reads whole. */
export function requestTooLarge(limit: number, sequence: string): FaultInfo {
  return faultOf(GatewayError.CONTENT_TOO_LARGE, { sequence, description: `The request body is larger than the ${limit} bytes the gateway reads whole for this API` });
}

/** 502: the backend's response is over the cap of what the API's out sequence may hold. */
export function responseTooLarge(limit: number, sequence: string): FaultInfo {
  return faultOf(GatewayError.RESPONSE_TOO_LARGE, { sequence, description: `The backend's response is larger than the ${limit} bytes the out sequence of this API may hold` });
}

/** 400: a header built by mediation from the request (or the request's own, once mediated) cannot be sent. */
export function unsafeRequestHeader(sequence: string): FaultInfo {
  return faultOf(GatewayError.UNSAFE_REQUEST_HEADER, { sequence });
}

/** 502: a header built by mediation from the backend's response cannot be sent to the client. */
export function unsafeResponseHeader(sequence: string): FaultInfo {
  return faultOf(GatewayError.UNSAFE_RESPONSE_HEADER, { sequence });
}
