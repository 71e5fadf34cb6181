import type { ResponseNumbers } from '../../transport/number-lines.js';
/**
 * The client's side of a call as the call sees it: the request's normalised facts and the writer of the
 * response. The front door's ClientExchange (transport/front-door/client-exchange.ts) is the one
 * implementation on a socket (its writer sends what one turn of the event loop wrote in one write); a phase
 * test gives the call a fake one (test/helpers/inject.ts) and reads what was written.
 */
export interface ClientSide {
  readonly head: RequestFacts;
  readonly clientIp: string;
  readonly secure: boolean;
  /**
   * The status line and head. `headerLines` is `name: value\r\n` lines; `framing` is a Content-Length
   * (>= 0) or a BodyFraming (transport/front-door/client-exchange.ts). `forceClose`: the connection closes
   * after this response. `numbers`: fields whose values change on every call (X-RateLimit-Remaining),
   * written as bytes apart so that the rest of the head can be the kept one (transport/number-lines.ts).
   */
  writeHead(status: number, statusText: string, headerLines: string, framing: number, forceClose?: boolean, numbers?: ResponseNumbers | null): void;
  /** A piece of the body; false: the client is slow, wait for the handler's onWritable. */
  write(chunk: Buffer): boolean;
  /** The end of the response, with a last piece (or none). */
  end(chunk?: Buffer | null): void;
  /** Cuts the connection: the response cannot be completed honestly. */
  abort(): void;
  /** The body is wanted now (sends 100 Continue when the client asked for it). */
  continueBody(): void;
  /** Stop and resume reading the request body (back-pressure from the backend). */
  pauseBody(): void;
  resumeBody(): void;
}

/** The request as the front door normalised it (transport/front-door/request-head.ts). */
export interface RequestFacts {
  readonly method: string;
  /** The normalised path, no query. */
  readonly path: string;
  readonly query: string;
  readonly minDepth: number;
  /** Flat [name, value, ...], names lower-case. */
  readonly headers: string[];
  /** -1: no Content-Length. */
  readonly contentLength: number;
  readonly chunked: boolean;
  readonly hasBody: boolean;
}
