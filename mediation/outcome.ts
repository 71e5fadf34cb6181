/**
 * What a compiled sequence (or one mediator) tells its caller, like an Envoy filter status.
 *
 * - CONTINUE: go on (the next mediator; at the end of a sequence: the gateway goes on with the call).
 * - RESPOND: send the message back to the client now (`respond`, `loopback`, `send` when RESPONSE=true).
 * - DROP: stop; this sequence sends nothing more (`drop`).
 * - SEND: in a request flow, send the message to the backend; in a response or fault flow, send it to the
 *   client (`send`).
 *
 * Every outcome but CONTINUE ends the sequence and every sequence that called it by key.
 */
export const Outcome = {
  CONTINUE: 0,
  RESPOND: 1,
  DROP: 2,
  SEND: 3,
} as const;

export type Outcome = (typeof Outcome)[keyof typeof Outcome];

const NAMES = ['CONTINUE', 'RESPOND', 'DROP', 'SEND'] as const;

export function outcomeName(o: Outcome): (typeof NAMES)[number] {
  return NAMES[o];
}
