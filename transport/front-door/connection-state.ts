/** A client connection's states and clocks (client-connection.ts). */

/** Where the parser is between reads. */
export const Reading = {
  /** Between messages, or in a later head: the parser begins one silently; `inHead` asks it whether it has. */
  IDLE: 0,
  /** Inside the connection's first request head. */
  HEAD: 1,
  /** Inside a request body. */
  BODY: 2,
  /** Nothing more is parsed: after a refusal, an upgrade, or while closing. */
  STOPPED: 3,
} as const;
export type Reading = (typeof Reading)[keyof typeof Reading];

/**
 * After a response that left part of a request unread, its bytes are read and dropped until the client has
 * sent nothing for LINGER_IDLE_MS, or for LINGER_MAX_MS at most (nginx's lingering_timeout and lingering_time).
 */
export const LINGER_IDLE_MS = 2000;
export const LINGER_MAX_MS = 30000;
