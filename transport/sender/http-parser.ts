import { createRequire } from 'node:module';

/**
 * Node's own HTTP/1.1 parser (llhttp, the C parser behind node:http), reached through `_http_common`
 * the way node:http's client reaches it. Sluice parses backend responses with it instead of hand-written
 * code; undici's dispatch costs about twice the CPU per proxied call (see docs/decisions.md).
 */
export interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | Error;
  finish(): number | Error | undefined;
  close(): void;
  free(): void;
  remove(): void;
  /** Milliseconds since the current message's first byte; 0 between messages (unset before the first). */
  duration(): number;
  /** Whether the current message's head is complete. */
  headersCompleted(): boolean;
  [index: number]: unknown;
}

interface LlhttpParserClass {
  new (): LlhttpParser;
  readonly REQUEST: number;
  readonly RESPONSE: number;
  readonly kOnMessageBegin: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
  readonly kOnExecute: number;
  readonly kLenientNone: number;
}

const require = createRequire(import.meta.url);
export const HTTPParser = (require('_http_common') as { HTTPParser: LlhttpParserClass }).HTTPParser;
/**
 * llhttp's method names by the number its callbacks give, internalized (a property key is): Node makes them
 * as plain strings, so each compare with a literal (`method === 'HEAD'`, idempotent-methods.ts) compared
 * their bytes (V8's StringEqual) where an internalized pair compares by pointer.
 */
export const METHODS: readonly string[] = (require('_http_common') as { methods: readonly string[] }).methods.map((m) => Object.keys({ [m]: 0 })[0]!);

export const kOnMessageBegin = HTTPParser.kOnMessageBegin | 0;
export const kOnHeaders = HTTPParser.kOnHeaders | 0;
export const kOnHeadersComplete = HTTPParser.kOnHeadersComplete | 0;
export const kOnBody = HTTPParser.kOnBody | 0;
export const kOnMessageComplete = HTTPParser.kOnMessageComplete | 0;
export const kOnExecute = HTTPParser.kOnExecute | 0;

/** The parser signals "do not expect a body" (responses to HEAD) by this return from on-headers-complete. */
export const SKIP_BODY = 1;
/**
 * Returned from on-headers-complete: the parser treats the connection as upgraded, reports the message
 * complete and stops right after the head, and `execute` returns the bytes it consumed (node:http's
 * client does the same for an upgrade). The caller reads the body; Node has resumed the parser, which
 * takes the next response from its first byte.
 */
export const STOP_AT_HEAD = 2;

/**
 * The Content-Length of a response head, or -1 when there is none (chunked or close-delimited). llhttp has
 * already rejected a malformed, duplicated or conflicting Content-Length by the time the head is complete.
 */
export function plainBodyLength(headers: readonly string[]): number {
  let length = -1;
  for (let i = 0; i < headers.length; i += 2) {
    const n = headers[i]!;
    // The usual spelling first: a compare of 14 bytes, where lower-casing makes a new string every response.
    if (n.length === 14 && (n === 'Content-Length' || n.toLowerCase() === 'content-length')) length = Number(headers[i + 1]);
    else if (n.length === 17 && (n === 'Transfer-Encoding' || n.toLowerCase() === 'transfer-encoding')) return -1;
  }
  return length;
}
