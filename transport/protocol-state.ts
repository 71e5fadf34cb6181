/**
 * The pass-through sender's protocol states (seed 000, "Transport sender protocol states"). A state's
 * value is added to a base transport error code: a timeout (101504) while REQUEST_DONE (3) is 101507.
 *
 * The moves between them (Sluice's choice where the seed says "not shown") are the checked table of
 * sender/exchange-state.ts; the values here are the seed's and do not change, codes are computed from them.
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
