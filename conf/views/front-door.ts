/**
 * The front door's settings as configured ([passthru_http] keys; docs/security.md): plain data that
 * passthru.ts reads and transport/front-door/ applies. Here, below transport, so that conf needs nothing of it.
 */

/** What to do with what has no single meaning in a request target ([passthru_http] path_* keys). */
export interface TargetRules {
  /** `%2F` and `%5C`: refuse (default) or keep encoded, matched as data. */
  readonly escapedSlash: 'reject' | 'keep';
  /** A raw `\`: refuse (default) or treat as `/` (WHATWG URL parsing). */
  readonly backslash: 'reject' | 'slash';
  /** `;` in a segment: refuse (default) or drop `;...` up to the next `/`. */
  readonly pathParameters: 'reject' | 'strip';
  /** `//` -> `/` (default true). */
  readonly mergeSlashes: boolean;
}

/** The front door's limits and rules for a request head. */
export interface DoorSettings {
  /** Longest request target accepted (414 above). */
  readonly maxTargetBytes: number;
  /** Largest header section (names, values, `: ` and CRLF) accepted (431 above). */
  readonly maxHeaderBytes: number;
  /** Most header fields accepted (431 above). */
  readonly maxHeaderCount: number;
  readonly target: TargetRules;
}

/** Timeouts of the client side ([passthru_http] client_*_timeout), ms. */
export interface DoorTimeouts {
  /** From the first byte of a head (or the connection's start) to its end. */
  readonly headerMs: number;
  /** Between two reads of a request body. */
  readonly bodyMs: number;
  /** An idle keep-alive connection between requests. */
  readonly keepAliveMs: number;
  /** A client that takes none of the response for this long. */
  readonly sendMs: number;
}

export interface DoorConfig extends DoorSettings {
  readonly timeouts: DoorTimeouts;
  /** Requests parsed ahead of the one being answered (pipelining) before reading stops. */
  readonly maxPipelined: number;
  /** Bytes of request bodies held for exchanges waiting their turn before reading stops. */
  readonly maxQueuedBytes: number;
}
