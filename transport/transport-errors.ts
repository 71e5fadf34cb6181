import { ProtocolState, stateName } from './protocol-state.js';
import { TRANSPORT_BASES, TransportError, type TransportBase } from '../errors/transport.js';

/**
 * Seed 000's transport base codes by name (the numbers and texts are the catalogue's: errors/transport.ts).
 */
export const TransportErrorCode = {
  RECEIVER_IO_ERROR_SENDING: TransportError.RECEIVER_IO_ERROR_SENDING.code,
  RECEIVER_IO_ERROR_RECEIVING: TransportError.RECEIVER_IO_ERROR_RECEIVING.code,
  SENDER_IO_ERROR_SENDING: TransportError.SENDER_IO_ERROR_SENDING.code,
  SENDER_IO_ERROR_RECEIVING: TransportError.SENDER_IO_ERROR_RECEIVING.code,
  CONNECTION_FAILED: TransportError.CONNECTION_FAILED.code,
  CONNECTION_TIMED_OUT: TransportError.CONNECTION_TIMED_OUT.code,
  CONNECTION_CLOSED: TransportError.CONNECTION_CLOSED.code,
  NHTTP_PROTOCOL_VIOLATION: TransportError.NHTTP_PROTOCOL_VIOLATION.code,
  CONNECTION_CANCELED: TransportError.CONNECTION_CANCELED.code,
  CONNECT_TIMEOUT: TransportError.CONNECT_TIMEOUT.code,
  SEND_ABORT: TransportError.SEND_ABORT.code,
  RESPONSE_PROCESSING_FAILURE: TransportError.RESPONSE_PROCESSING_FAILURE.code,
} as const;
export type TransportErrorCode = (typeof TransportErrorCode)[keyof typeof TransportErrorCode];

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
    const info: TransportBase = TRANSPORT_BASES.get(base)!;
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
    return TRANSPORT_BASES.get(this.base)!.message;
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
