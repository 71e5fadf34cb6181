/**
 * Limits of uWS's cork buffer that every writer to a client response keeps to.
 *
 * uWS gathers the writes made inside `res.cork` in one per-loop buffer of 16 KiB (LoopData::CORK_BUFFER_SIZE)
 * and sends it as one write when the cork ends. A write that does not fit the space left makes uWS send what
 * the buffer holds first. In the uWS 20.30 core that this package ships, when the socket cannot take all of
 * those bytes at once (the client reads slowly and its socket is full), that new write is dropped while uWS
 * reports back-pressure (AsyncSocket::uncork returns before writing it). `tryEnd` reports the offset it
 * reached, so a Content-Length body resumes from the right byte; `write` (chunked bodies) and `end(body)`
 * have no offset, and a chunk's size line went out without its data.
 *
 * So: inside a cork that already holds bytes, a write must surely fit what is left; anything larger goes in
 * corks of its own, each starting empty (test/transport/slow-client-bodies).
 */

/** LoopData::CORK_BUFFER_SIZE in uWS. */
export const CORK_BUFFER_SIZE = 16 * 1024;

/** What `res.write` puts around a chunk: CRLF, up to 8 hex digits, CRLF; also bounds `end()`'s last chunk. */
export const CHUNK_FRAMING_BYTES = 12;

/** Room kept for what uWS adds to a head we measured: the status line's prefix, Date, Transfer-Encoding or Content-Length. */
export const HEAD_SLACK_BYTES = 512;

/** The largest body piece written in a cork of its own: it fits with its framing and a first write's headers. */
export const MAX_PIECE_PER_CORK = CORK_BUFFER_SIZE - HEAD_SLACK_BYTES;
