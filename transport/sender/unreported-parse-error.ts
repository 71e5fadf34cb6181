import { HTTPParser } from './http-parser.js';

/**
 * The parse error llhttp stopped at without Node's binding reporting it.
 *
 * A head answered with STOP_AT_HEAD (http-parser.ts) leaves llhttp's `upgrade` flag set until a later head
 * completes, and while it is set Node's binding gives a parse error back from `execute` as the count of the
 * bytes before it, not as an Error (node_http_parser.cc makes the Error only when the parser is not
 * upgraded). So `execute` taking fewer bytes than it was given, with no head stopping it there, is a parse
 * error whose code was lost: read on, the caller would wait for bytes the parser will never take (Sluice
 * stop 46: a malformed response after a Content-Length one hung its call until the socket timeout).
 *
 * `input` (the bytes that `execute` was given) is parsed again by a fresh parser. When it stops with an
 * error at the same byte, the message began with `input` and that error is the one; otherwise the message
 * began in an earlier read, and the error is given without llhttp's code. Only a broken message comes here.
 */
export function unreportedParseError(type: number, maxHeaderSize: number, input: Buffer, stoppedAt: number): Error {
  const fresh = new HTTPParser();
  fresh.initialize(type, {}, maxHeaderSize, 0);
  const again = fresh.execute(input);
  fresh.close();
  if (again instanceof Error && (again as Error & { bytesParsed?: number }).bytesParsed === stoppedAt) return again;
  return Object.assign(new Error('Parse Error: Malformed message'), { code: 'HPE_ERROR', reason: 'Malformed message', bytesParsed: stoppedAt });
}
