import type { BackendTransportError } from '../transport-errors.js';

/**
 * What the sender tells the owner of a message, named after the protocol events (undici's legacy
 * dispatch handler names). Called synchronously from socket callbacks; none of them may throw.
 */
export interface SenderHandler {
  /** A backend connection is assigned; the request head is being written (REQUEST_HEAD). */
  onConnect(): void;
  /** The request, body included, has been written (REQUEST_DONE). */
  onRequestSent(): void;
  /** A request body write that returned false may be followed by more writes now. */
  onDrain(): void;
  /**
   * The response head (RESPONSE_HEAD). `headers` is flat: [name, value, name, value, ...], names as the
   * backend wrote them. `bodyLength`: the body's Content-Length, -1 when the body is chunked or
   * close-delimited or the response has none (HEAD, 101, 204, 304).
   */
  onHeaders(status: number, statusText: string, headers: string[], keepAlive: boolean, bodyLength: number): void;
  /**
   * A chunk of the response body (RESPONSE_BODY). Return false to stop reading until `resume()`. The chunk
   * may be a view of the connection's read buffer, valid only during the call: copy what you keep.
   */
  onData(chunk: Buffer): boolean;
  /** The response is complete (RESPONSE_DONE). */
  onComplete(): void;
  /** The exchange failed; no other callback follows. */
  onError(err: BackendTransportError): void;
}

export const BodyMode = {
  NONE: 0,
  CONTENT_LENGTH: 1,
  CHUNKED: 2,
} as const;
export type BodyMode = (typeof BodyMode)[keyof typeof BodyMode];

/** A request ready to go on the wire. The owner builds the head (request line and headers). */
export interface OutboundRequest {
  /** Request line, headers and the blank line: `GET /x HTTP/1.1\r\nhost: b\r\n...\r\n\r\n`. */
  readonly head: string;
  readonly bodyMode: BodyMode;
  /** The response to a HEAD request has no body whatever its headers say. */
  readonly isHead: boolean;
  /** Idempotent and without a body: safe to send again on a fresh connection when a reused one closes before any reply. */
  readonly retryable: boolean;
}
