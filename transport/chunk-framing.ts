/**
 * One chunk of a chunked body (RFC 9112 §7.1) written into a buffer: the data's size in hex, CRLF, the data,
 * CRLF. The response writer (front-door/client-exchange.ts) and the request writer (sender/request-writer.ts)
 * frame their pieces with it.
 */

/** Bytes the chunk of `n` data bytes takes, `size` being its size line (`n` in hex). */
export function chunkLength(size: string, n: number): number {
  return size.length + 2 + n + 2;
}

/** Writes the chunk of `data` at `at` in `out` (`size`: data.length in hex); returns where it ends. */
export function putChunk(out: Buffer, at: number, size: string, data: Uint8Array): number {
  at += out.write(size, at, 'latin1');
  out[at++] = 13; out[at++] = 10;
  out.set(data, at);
  at += data.length;
  out[at++] = 13; out[at++] = 10;
  return at;
}
