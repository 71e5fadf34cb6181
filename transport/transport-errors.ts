import { ProtocolState, stateName } from './protocol-state.js';

/** Seed 000, "Transport error codes": the base codes. */
export const TransportErrorCode = {
  RECEIVER_IO_ERROR_SENDING: 101000,
  RECEIVER_IO_ERROR_RECEIVING: 101001,
  SENDER_IO_ERROR_SENDING: 101500,
  SENDER_IO_ERROR_RECEIVING: 101501,
  CONNECTION_FAILED: 101503,
  CONNECTION_TIMED_OUT: 101504,
  CONNECTION_CLOSED: 101505,
  NHTTP_PROTOCOL_VIOLATION: 101506,
  CONNECTION_CANCELED: 101507,
  CONNECT_TIMEOUT: 101508,
  SEND_ABORT: 101509,
  RESPONSE_PROCESSING_FAILURE: 101510,
  /** API handler code used for a client that went away mid-request body. */
  INCOMPLETE_PAYLOAD: 102511,
} as const;
export type TransportErrorCode = (typeof TransportErrorCode)[keyof typeof TransportErrorCode];

interface BaseInfo {
  /** The seed's detail text. */
  readonly detail: string;
  /** Short words for fault descriptions and logs: "<what> in <STATE>". */
  readonly what: string;
  /** HTTP status the client gets when the response has not started (docs/errors.md). */
  readonly status: number;
  /** Whether code = base + protocol state (the seed's rule for connection-level sender errors). */
  readonly addsState: boolean;
}

export const TRANSPORT_ERRORS: Readonly<Record<number, BaseInfo>> = {
  101000: { detail: 'Receiver input/output error sending', what: 'Error sending the response to the client', status: 500, addsState: false },
  101001: { detail: 'Receiver input/output error receiving', what: 'Error receiving the request from the client', status: 400, addsState: false },
  101500: { detail: 'Sender input/output error sending', what: 'Error sending the request to the backend', status: 502, addsState: true },
  101501: { detail: 'Sender input/output error receiving', what: 'Error receiving the response from the backend', status: 502, addsState: true },
  101503: { detail: 'Connection failed', what: 'Connection failed', status: 503, addsState: true },
  101504: { detail: 'Connection timed out (no input within the maximum inactivity period)', what: 'Connection timed out', status: 504, addsState: true },
  101505: { detail: 'Connection closed', what: 'Connection closed by the backend', status: 502, addsState: true },
  101506: { detail: 'HTTP non-blocking protocol violation', what: 'Backend protocol violation', status: 502, addsState: true },
  101507: { detail: 'Connection canceled', what: 'Connection canceled', status: 502, addsState: true },
  101508: { detail: 'Request to establish a new connection timed out', what: 'Connect timed out', status: 504, addsState: true },
  101509: { detail: 'Send abort', what: 'Send aborted', status: 502, addsState: true },
  101510: { detail: 'Response processing failed', what: 'Response processing failed', status: 500, addsState: false },
  102511: { detail: 'Incomplete payload', what: 'Incomplete payload', status: 400, addsState: false },
};

/**
 * A connection-level failure on the way to or from a backend, in a known protocol state. `code` follows
 * the seed's rule (base + state); because that sum collides with other bases (101504 + 3 = 101507), the
 * description names the base error and the state ("Connection timed out in REQUEST_DONE").
 */
export class BackendTransportError extends Error {
  readonly base: TransportErrorCode;
  readonly state: ProtocolState;
  readonly code: number;
  readonly status: number;
  /** For logs only (may hold backend addresses); never sent to clients. */
  readonly reason: string;

  constructor(base: TransportErrorCode, state: ProtocolState, reason: string) {
    const info = TRANSPORT_ERRORS[base]!;
    super(`${info.what} in ${stateName(state)}`);
    this.name = 'BackendTransportError';
    this.base = base;
    this.state = state;
    this.code = info.addsState ? base + state : base;
    this.status = info.status;
    this.reason = reason;
  }

  /** The fault description sent to the client: the base error and the state, no addresses. */
  get description(): string {
    return this.message;
  }

  get detail(): string {
    return TRANSPORT_ERRORS[this.base]!.detail;
  }
}

/** Maps a socket error code from Node to the base transport error for the phase it happened in. */
export function baseForSocketError(errno: string | undefined, connected: boolean, writing: boolean): TransportErrorCode {
  switch (errno) {
    case 'ECONNREFUSED': case 'ENOTFOUND': case 'EAI_AGAIN': case 'EHOSTUNREACH': case 'ENETUNREACH':
    case 'EADDRNOTAVAIL': case 'ERR_TLS_CERT_ALTNAME_INVALID': case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN': case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'CERT_HAS_EXPIRED':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return TransportErrorCode.CONNECTION_FAILED;
    case 'ETIMEDOUT':
      return connected ? TransportErrorCode.CONNECTION_TIMED_OUT : TransportErrorCode.CONNECT_TIMEOUT;
    case 'ECONNRESET': case 'EPIPE':
      return connected ? TransportErrorCode.CONNECTION_CLOSED : TransportErrorCode.CONNECTION_FAILED;
    default:
      if (!connected) return TransportErrorCode.CONNECTION_FAILED;
      return writing ? TransportErrorCode.SENDER_IO_ERROR_SENDING : TransportErrorCode.SENDER_IO_ERROR_RECEIVING;
  }
}
