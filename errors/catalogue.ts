import { ApiHandlerError } from './api-handler.js';
import { DoorError } from './front-door.js';
import { GatewayError } from './gateway.js';
import { TransportError } from './transport.js';
import type { ErrorEntry } from './error-entry.js';

/** Every family of the catalogue, in the order docs/errors.md shows them. */
export const FAMILIES = [
  { name: 'transport', title: 'Transport errors (pass-through sender)', entries: TransportError },
  { name: 'api-handler', title: 'API handler errors (seed 000)', entries: ApiHandlerError },
  { name: 'front-door', title: 'Front door refusals', entries: DoorError },
  { name: 'gateway', title: 'Sluice\'s own gateway errors', entries: GatewayError },
] as const;

/** Every entry of the catalogue. */
export const ALL_ERRORS: readonly ErrorEntry[] = FAMILIES.flatMap((f) => Object.values<ErrorEntry>(f.entries));

/**
 * The entry a bare code stands for: the first with that code, the seed's API handler errors before Sluice's
 * own (900901 is INVALID_CREDENTIALS, not PRODUCTION_KEY_ERROR). A fault sequence that raises by code, or a
 * fault given only a code, takes its message, description, status and sequence from it.
 */
const BY_CODE: ReadonlyMap<number, ErrorEntry> = (() => {
  const m = new Map<number, ErrorEntry>();
  for (const e of [...Object.values<ErrorEntry>(ApiHandlerError), ...Object.values<ErrorEntry>(GatewayError),
    ...Object.values<ErrorEntry>(DoorError), ...Object.values<ErrorEntry>(TransportError)]) if (!m.has(e.code)) m.set(e.code, e);
  return m;
})();

export function errorByCode(code: number): ErrorEntry | undefined {
  return BY_CODE.get(code);
}

const THROTTLE_FIRST = ApiHandlerError.THROTTLED_OUT.code;
const THROTTLE_LAST = ApiHandlerError.BURST_THROTTLED_OUT.code;
const AUTH_FIRST = ApiHandlerError.AUTH_GENERAL_ERROR.code;
/** Seed 000 keeps 9009xx for authentication; the last code it lists is 900911. */
const AUTH_LAST = AUTH_FIRST + 99;
const TRANSPORT_FIRST = TransportError.RECEIVER_IO_ERROR_SENDING.code;
/** Base + protocol state: the highest state (CLOSED) added to the highest base stays below this. */
const TRANSPORT_LAST = TransportError.RESPONSE_PROCESSING_FAILURE.code + 90;

/** A throttling fault (seed 000's 900800..900807). */
export function isThrottleCode(code: number): boolean {
  return code >= THROTTLE_FIRST && code <= THROTTLE_LAST;
}

/** What kind of failure a fault code says, for analytics events (the reference system's error types). */
export type ErrorKind = 'THROTTLED' | 'AUTH' | 'API_BLOCKED' | 'TARGET_CONNECTIVITY' | 'OTHER';

export function errorKind(code: number): ErrorKind | null {
  if (code === 0) return null;
  if (isThrottleCode(code)) return 'THROTTLED';
  if (code >= AUTH_FIRST && code <= AUTH_LAST) return 'AUTH';
  if (code === ApiHandlerError.API_BLOCKED.code) return 'API_BLOCKED';
  if ((code >= TRANSPORT_FIRST && code <= TRANSPORT_LAST) || code === ApiHandlerError.INCOMPLETE_PAYLOAD.code) return 'TARGET_CONNECTIVITY';
  return 'OTHER';
}
