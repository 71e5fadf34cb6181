import { PROTOCOL_STATE_NAMES, ProtocolState, stateName } from '../protocol-state.js';

/**
 * The moves an exchange's protocol state may make, as data (docs/transport.md, "The sender and its protocol
 * states"). Every assignment of the state goes through `transition`, so a move not listed here is a bug in the
 * sender, found where it happens rather than as a wrong error code (base + state) later. CLOSING is not
 * entered: an exchange is torn down synchronously, straight to CLOSED; the value stays for the seed's codes.
 */
export const EXCHANGE_MOVES: readonly (readonly [ProtocolState, readonly ProtocolState[]])[] = [
  // A connection is assigned; or the exchange gives up while it waits (abort, no connection to be had).
  [ProtocolState.REQUEST_READY, [ProtocolState.REQUEST_HEAD, ProtocolState.CLOSED]],
  // RESPONSE_HEAD before REQUEST_DONE: the backend answered before it had the whole request. REQUEST_READY:
  // a reused connection failed before any reply and the request goes out again on another one.
  [ProtocolState.REQUEST_HEAD, [ProtocolState.REQUEST_BODY, ProtocolState.REQUEST_DONE, ProtocolState.RESPONSE_HEAD,
    ProtocolState.REQUEST_READY, ProtocolState.CLOSED]],
  [ProtocolState.REQUEST_BODY, [ProtocolState.REQUEST_DONE, ProtocolState.RESPONSE_HEAD, ProtocolState.REQUEST_READY,
    ProtocolState.CLOSED]],
  [ProtocolState.REQUEST_DONE, [ProtocolState.RESPONSE_HEAD, ProtocolState.REQUEST_READY, ProtocolState.CLOSED]],
  [ProtocolState.RESPONSE_HEAD, [ProtocolState.RESPONSE_BODY, ProtocolState.RESPONSE_DONE, ProtocolState.CLOSED]],
  [ProtocolState.RESPONSE_BODY, [ProtocolState.RESPONSE_DONE, ProtocolState.CLOSED]],
  // RESPONSE_DONE and CLOSED are final: the exchange is over.
];

/**
 * Where the request stands beside the protocol state. The two overlap: a backend may answer (RESPONSE_HEAD)
 * while the owner still writes the body, and the owner may end the body before any connection is assigned.
 */
export const RequestBody = {
  /** The owner may write more of the body. */
  OPEN: 0,
  /** The owner ended it; no connection has written its end yet (none was assigned). */
  ENDED: 1,
  /** The whole request, its end included, is on the wire. */
  SENT: 2,
} as const;
export type RequestBody = (typeof RequestBody)[keyof typeof RequestBody];

const REQUEST_BODY_NAMES: readonly string[] = ['OPEN', 'ENDED', 'SENT'];

export const REQUEST_BODY_MOVES: readonly (readonly [RequestBody, readonly RequestBody[]])[] = [
  // SENT at once when a connection is there, or for a request without a body (its end is its head).
  [RequestBody.OPEN, [RequestBody.ENDED, RequestBody.SENT]],
  [RequestBody.ENDED, [RequestBody.SENT]],
  // A retry on a fresh connection: the request is written again from its head.
  [RequestBody.SENT, [RequestBody.ENDED]],
];

/** The moves as a from x to matrix of 0/1, built once: a check is one load, with nothing allocated. */
function matrixOf(size: number, moves: readonly (readonly [number, readonly number[]])[]): Uint8Array {
  const m = new Uint8Array(size * size);
  for (const [from, tos] of moves) for (const to of tos) m[from * size + to] = 1;
  return m;
}

const STATES = PROTOCOL_STATE_NAMES.length;
const EXCHANGE_MATRIX = matrixOf(STATES, EXCHANGE_MOVES);
const REQUEST_BODY_MATRIX = matrixOf(REQUEST_BODY_NAMES.length, REQUEST_BODY_MOVES);

/** A move the tables do not allow: a bug in the sender, not something a backend or client can cause. */
export class ImpossibleMove extends Error {
  constructor(readonly what: string, readonly from: string, readonly to: string) {
    super(`${what}: impossible move ${from} -> ${to}`);
    this.name = 'ImpossibleMove';
  }
}

/** Asserts that the exchange may move `from` -> `to`, and returns `to` (`this.state = transition(this.state, X)`). */
export function transition(from: ProtocolState, to: ProtocolState): ProtocolState {
  if (EXCHANGE_MATRIX[from * STATES + to] !== 1) throw new ImpossibleMove('sender exchange', stateName(from), stateName(to));
  return to;
}

/** The same for the request body's progress. */
export function requestBodyTransition(from: RequestBody, to: RequestBody): RequestBody {
  if (REQUEST_BODY_MATRIX[from * REQUEST_BODY_NAMES.length + to] !== 1) {
    throw new ImpossibleMove('sender request body', REQUEST_BODY_NAMES[from] ?? String(from), REQUEST_BODY_NAMES[to] ?? String(to));
  }
  return to;
}

/** The response has begun and is not complete. */
export function isResponding(s: ProtocolState): boolean {
  return s === ProtocolState.RESPONSE_HEAD || s === ProtocolState.RESPONSE_BODY;
}

/** The exchange is over (complete, failed or aborted): no callback follows. */
export function isFinal(s: ProtocolState): boolean {
  return s === ProtocolState.RESPONSE_DONE || s === ProtocolState.CLOSED;
}
