import { STATUS_CODES } from 'node:http';
import type { FaultInfo } from '../../errors/error-entry.js';

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

/**
 * Renders a fault (errors/error-entry.ts) to a response: the fault sequence the error names builds it
 * (engine/gateway/sequence-faults.ts). The gateway calls it synchronously on the io thread.
 */
export interface FaultRenderer {
  render(fault: FaultInfo, facts: FaultFacts): RenderedFault;
}

/** The reason phrase of a status (RFC 9110 §15), '' for one HTTP does not name (a custom 555). */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? '';
}
