import { KeptReadBytes } from '../kept-read-bytes.js';

/**
 * The last backend read that was exactly one whole response with a Content-Length body, with what llhttp
 * gave for its head. A later read that repeats its head byte for byte and holds exactly as many body bytes,
 * on a connection whose parser stands at a response's first byte, is answered from it without llhttp: the
 * head callback runs with the kept arguments, and the body is read past the parser as it always is
 * (backend-connection.ts, `bodyLeft`). The client side has its twin (front-door/kept-read.ts).
 *
 * Why: a backend answers the same call with the same bytes, Date included, for a second at a time, and a
 * response's head cost llhttp's scan, a string per field and value from Node's binding and a crossing into
 * JavaScript on every call.
 *
 * Why it is what llhttp would make of the read: llhttp is deterministic. A read is kept only when the
 * connection's parser stood at a response's first byte, the read made exactly one head (no 1xx before it),
 * whole in one callback, and the parser stopped after it with a Content-Length body to read (not a HEAD
 * request's answer, not 204, 304 or 101), and that body ended the read. From the same state the same head
 * bytes make the same callbacks, and a Content-Length body is bytes counted, whatever they hold; so the
 * body's bytes are not compared, only their number. One per io thread (a module of each thread's own); its
 * size is bounded by the response head limit.
 */
export class KeptResponse {
  /** The kept read's head bytes and its length (a repeat has the same head and as much body). */
  private readonly read = new KeptReadBytes();
  /** What llhttp gave for the head (the fields as received: each replay gets a copy). */
  status = 0;
  statusText = '';
  private headers: readonly string[] = [];
  keepAlive = false;
  /** Reads answered from the kept one (tests, docs). */
  hits = 0;

  /**
   * Whether the `n`-byte read in `chunk` repeats the kept one: its head's bytes, and as many body bytes.
   * `words`: `chunk`'s memory as 32-bit words from its first byte, or null (kept-read-bytes.ts).
   */
  repeats(chunk: Buffer, n: number, words: Int32Array | null): boolean {
    return this.read.repeats(chunk, n, words);
  }

  /** Bytes of the kept head (the body follows them). */
  get headLength(): number {
    return this.read.headLength;
  }

  /** The kept head's fields, a copy of their own for the call (a mediation may rewrite them). */
  fields(): string[] {
    this.hits++;
    return this.headers.slice();
  }

  /** Keeps the first `headLength` bytes of the `n`-byte read in `chunk` and the head's arguments. */
  keep(chunk: Buffer, n: number, headLength: number, status: number, statusText: string, headers: readonly string[], keepAlive: boolean): void {
    this.read.hold(chunk, n, headLength);
    this.status = status;
    this.statusText = statusText;
    this.headers = headers.slice();
    this.keepAlive = keepAlive;
  }
}

/** This io thread's kept response. */
export const keptResponse = new KeptResponse();
