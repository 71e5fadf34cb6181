import type { FaultSequenceName } from './fault-sequences.js';

/**
 * One error a client can get: the code of the fault body (ERROR_CODE), the HTTP status the error suggests
 * (HTTP_SC; a sequence may change it), the message (ERROR_MESSAGE), the default description (ERROR_DETAIL)
 * and the fault sequence that renders it. Call sites raise entries by name; the numbers live here only.
 */
export interface ErrorEntry {
  /** The constant's name (`INVALID_CREDENTIALS`): logs, tests and docs/errors.md name errors by it. */
  readonly name: string;
  readonly code: number;
  readonly status: number;
  readonly message: string;
  readonly description: string;
  readonly sequence: FaultSequenceName;
  /** When Sluice raises it, for docs/errors.md. */
  readonly when: string;
}

/** A fault about to be rendered: an entry's fields, with what the call site sharpened (description, headers). */
export interface FaultInfo {
  readonly code: number;
  /** The status the fault suggests (HTTP_SC); a sequence may change it. */
  readonly status: number;
  readonly message: string;
  readonly description: string;
  /** The fault sequence to run (an API's own fault_sequence may replace the entry's). */
  readonly sequence: string;
  /** Headers the gateway adds whatever the sequence does (WWW-Authenticate, Retry-After, Allow). */
  readonly headers?: readonly (readonly [string, string])[];
}

/** What a call site may change of an entry when it raises it. */
export interface FaultExtra {
  readonly description?: string;
  readonly headers?: readonly (readonly [string, string])[];
  readonly sequence?: string;
  readonly status?: number;
}

/** The fault an entry raises, with the call site's changes. */
export function faultOf(e: ErrorEntry, extra?: FaultExtra): FaultInfo {
  if (extra === undefined) return e;
  return {
    code: e.code,
    status: extra.status ?? e.status,
    message: e.message,
    description: extra.description ?? e.description,
    sequence: extra.sequence ?? e.sequence,
    ...(extra.headers ? { headers: extra.headers } : {}),
  };
}

/**
 * Names each entry of a family after its key, so that `entries.X.name === 'X'` holds by construction and a
 * family is written as a plain object literal.
 */
export function family<K extends string>(entries: Record<K, Omit<ErrorEntry, 'name'>>): Readonly<Record<K, ErrorEntry>> {
  const out = {} as Record<K, ErrorEntry>;
  for (const k of Object.keys(entries) as K[]) out[k] = Object.freeze({ name: k, ...entries[k] });
  return Object.freeze(out);
}
