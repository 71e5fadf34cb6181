import { STATUS_CODES } from 'node:http';

/**
 * A fault raised while a call is processed: the code and texts go into the message context properties
 * ERROR_CODE / ERROR_MESSAGE / ERROR_DETAIL and the named fault sequence renders the response.
 */
export interface FaultInfo {
  readonly code: number;
  /** The status the fault suggests (HTTP_SC); a sequence may change it. */
  readonly status: number;
  readonly message: string;
  readonly description: string;
  /** The fault sequence the seed names for this error (`_auth_failure_handler_`, `fault`, `main`...). */
  readonly sequence: string;
  /** Headers the gateway adds whatever the sequence does (WWW-Authenticate, Retry-After, CORS). */
  readonly headers?: readonly (readonly [string, string])[];
}

export interface RenderedFault {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/** Facts about the call a fault sequence may read (get-property('api.ut.api') and friends). */
export interface FaultFacts {
  readonly method: string;
  readonly path: string;
  readonly clientIp: string;
  readonly apiName?: string;
  readonly apiVersion?: string;
  readonly apiContext?: string;
  readonly resource?: string;
  readonly application?: string;
  readonly user?: string;
}

/** Renders a fault to a response. The gateway calls it synchronously on the io thread. */
export interface FaultRenderer {
  render(fault: FaultInfo, facts: FaultFacts): RenderedFault;
}

/** The reason phrase of a status (RFC 9110 §15), '' for one HTTP does not name (a custom 555). */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? '';
}
