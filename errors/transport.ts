import type { ErrorEntry } from './error-entry.js';
import { FaultSequence } from './fault-sequences.js';

/**
 * Seed 000's transport error codes: the base codes of the pass-through transport. For connection-level
 * errors the code a client sees is base + protocol state (the seed's rule; transport/transport-errors.ts
 * computes it), and the description names the base error and the state because the sums collide with other
 * bases (101504 + 3 = 101507).
 */
export interface TransportBase extends ErrorEntry {
  /** Short words for fault descriptions and logs: "<what> in <STATE>". */
  readonly what: string;
  /** Whether code = base + protocol state (the seed's rule for connection-level sender errors). */
  readonly addsState: boolean;
  /** The protocol states it is seen in, for docs/errors.md. */
  readonly statesSeen: string;
}

type Base = Omit<TransportBase, 'name' | 'sequence' | 'description'>;

function bases<K extends string>(entries: Record<K, Base>): Readonly<Record<K, TransportBase>> {
  const out = {} as Record<K, TransportBase>;
  for (const k of Object.keys(entries) as K[]) {
    const e = entries[k];
    out[k] = Object.freeze({ name: k, sequence: FaultSequence.FAULT, description: e.what, ...e });
  }
  return Object.freeze(out);
}

export const TransportError = bases({
  RECEIVER_IO_ERROR_SENDING: {
    code: 101000, status: 500, addsState: false, message: 'Receiver input/output error sending', what: 'Error sending the response to the client',
    when: '(not raised: a client that cannot take the response is a 101507 abort)', statesSeen: '',
  },
  RECEIVER_IO_ERROR_RECEIVING: {
    code: 101001, status: 400, addsState: false, message: 'Receiver input/output error receiving', what: 'Error receiving the request from the client',
    when: '(not raised: a read error on a client connection ends its call as a client gone, 101507)', statesSeen: '',
  },
  SENDER_IO_ERROR_SENDING: {
    code: 101500, status: 502, addsState: true, message: 'Sender input/output error sending', what: 'Error sending the request to the backend',
    when: 'a write error to the backend other than reset', statesSeen: 'REQUEST_HEAD, REQUEST_BODY',
  },
  SENDER_IO_ERROR_RECEIVING: {
    code: 101501, status: 502, addsState: true, message: 'Sender input/output error receiving', what: 'Error receiving the response from the backend',
    when: 'a read error from the backend other than reset', statesSeen: 'RESPONSE_*',
  },
  CONNECTION_FAILED: {
    code: 101503, status: 503, addsState: true, message: 'Connection failed', what: 'Connection failed',
    when: 'connection refused, DNS failure, unreachable host, TLS handshake or certificate failure; a WebSocket API whose ws/wss sender is disabled',
    statesSeen: 'REQUEST_READY (101503)',
  },
  CONNECTION_TIMED_OUT: {
    code: 101504, status: 504, addsState: true, message: 'Connection timed out (no input within the maximum inactivity period)', what: 'Connection timed out',
    when: 'no input within `http.socket.timeout`; also the global timeout',
    statesSeen: 'REQUEST_BODY (101506), REQUEST_DONE (101507), RESPONSE_BODY (101509: the client connection is closed)',
  },
  CONNECTION_CLOSED: {
    code: 101505, status: 502, addsState: true, message: 'Connection closed', what: 'Connection closed by the backend',
    when: 'the backend closed or reset the connection', statesSeen: 'REQUEST_DONE (101508), RESPONSE_BODY (101510: client connection closed)',
  },
  NHTTP_PROTOCOL_VIOLATION: {
    code: 101506, status: 502, addsState: true, message: 'HTTP non-blocking protocol violation', what: 'Backend protocol violation',
    when: 'the backend\'s reply is not valid HTTP (llhttp refused it), or is a 101 no request asked for or a status under 100', statesSeen: 'REQUEST_DONE (101509)',
  },
  CONNECTION_CANCELED: {
    code: 101507, status: 502, addsState: true, message: 'Connection canceled', what: 'Connection canceled',
    when: 'the client went away; the backend exchange is canceled (log only)', statesSeen: 'any',
  },
  CONNECT_TIMEOUT: {
    code: 101508, status: 504, addsState: true, message: 'Request to establish a new connection timed out', what: 'Connect timed out',
    when: 'no TCP connection within `backend_connect_timeout`', statesSeen: 'REQUEST_READY (101508)',
  },
  SEND_ABORT: {
    code: 101509, status: 502, addsState: true, message: 'Send abort', what: 'Send aborted', when: '(not raised separately)', statesSeen: '',
  },
  RESPONSE_PROCESSING_FAILURE: {
    code: 101510, status: 500, addsState: false, message: 'Response processing failed', what: 'Response processing failed',
    when: 'the seed\'s base; Sluice raises it through the named entries of its own errors below (a phase or sequence that failed, a response over its cap, a header no head may carry)',
    statesSeen: '(no state)',
  },
});

export type TransportErrorName = keyof typeof TransportError;

/** The base codes by number (a BackendTransportError carries its base as a number). */
export const TRANSPORT_BASES: ReadonlyMap<number, TransportBase> = new Map(Object.values(TransportError).map((e) => [e.code, e]));
