/**
 * The pass-through sender's protocol states (seed 000, "Transport sender protocol states"). A state's
 * value is added to a base transport error code: a timeout (101504) while REQUEST_DONE (3) is 101507.
 *
 * Transitions (Sluice's choice where the seed says "not shown"):
 *   REQUEST_READY -> REQUEST_HEAD   a backend connection is assigned and the request head is written
 *   REQUEST_HEAD  -> REQUEST_BODY   the first byte of a request body is written
 *   REQUEST_HEAD | REQUEST_BODY -> REQUEST_DONE   the whole request has been written
 *   REQUEST_DONE  -> RESPONSE_HEAD  the response status line and headers have been parsed
 *   RESPONSE_HEAD -> RESPONSE_BODY  the first byte of the response body arrives
 *   RESPONSE_HEAD | RESPONSE_BODY -> RESPONSE_DONE   the response is complete
 *   any -> CLOSING -> CLOSED        the exchange is being torn down / is over without a response
 */
export const ProtocolState = {
  REQUEST_READY: 0,
  REQUEST_HEAD: 1,
  REQUEST_BODY: 2,
  REQUEST_DONE: 3,
  RESPONSE_HEAD: 4,
  RESPONSE_BODY: 5,
  RESPONSE_DONE: 6,
  CLOSING: 7,
  CLOSED: 8,
} as const;
export type ProtocolState = (typeof ProtocolState)[keyof typeof ProtocolState];

export const PROTOCOL_STATE_NAMES: readonly string[] = [
  'REQUEST_READY', 'REQUEST_HEAD', 'REQUEST_BODY', 'REQUEST_DONE',
  'RESPONSE_HEAD', 'RESPONSE_BODY', 'RESPONSE_DONE', 'CLOSING', 'CLOSED',
];

export function stateName(s: ProtocolState): string {
  return PROTOCOL_STATE_NAMES[s] ?? `STATE_${s}`;
}
