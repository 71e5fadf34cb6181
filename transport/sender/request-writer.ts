import type net from 'node:net';
import type { SocketOut } from '../direct-write.js';
import { BodyMode } from './sender-handler.js';
import { chunkLength, putChunk } from '../chunk-framing.js';

const CRLF = '\r\n';
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

/** Ends the cork of RequestWriter.writeHead, on the tick after the head. */
function uncork(s: net.Socket): void {
  s.uncork();
}

/**
 * The request side of one backend connection (BackendConnection): the head, then the body in the framing
 * the request was given (BodyMode), as few system calls as the pieces allow.
 *
 * The head is written byte per character (latin1): llhttp decoded the client's bytes the same way, so they
 * go out as they came. A character above U+00FF would keep only its low byte (U+010A becoming LF, Node.js
 * CVE-2018-12116): no such character reaches here, llhttp gives none and what Sluice writes itself is
 * checked first (transport/field-values.ts).
 *
 * On a plain connection every byte goes to the connection's writer (transport/direct-write.ts), which
 * sends what a turn of the event loop gave it in one write at the turn's end: a body that came with the
 * head (the common small POST: one client read) leaves with it. Through TLS the stream is corked until the
 * next tick after a head whose body follows.
 */
export class RequestWriter {
  /**
   * @param out     the stream writes go to; a TLS session over a proxy tunnel replaces the plain socket.
   * @param direct  plain TCP to the backend: writes straight to the socket's handle (transport/direct-write.ts).
   */
  constructor(public out: net.Socket, private readonly direct: SocketOut | null) {}

  writeHead(head: string, bodyFollows: boolean): boolean {
    if (this.direct !== null) return this.direct.writeLatin1(head);
    const out = this.out;
    if (bodyFollows) {
      out.cork();
      process.nextTick(uncork, out);
    }
    return out.write(head, 'latin1');
  }

  /**
   * A piece of the body, which may be only lent (a view of the front door's read buffer, valid during this
   * call): the direct writer copies it into its memory of the turn, and a stream, which keeps what it cannot
   * send at once, is given a copy of its own.
   */
  writeBody(chunk: Buffer, mode: BodyMode): boolean {
    const direct = this.direct;
    if (mode === BodyMode.CHUNKED) {
      if (chunk.length === 0) return true;
      const size = chunk.length.toString(16);
      if (direct !== null) {
        const out = direct.scratch(chunkLength(size, chunk.length));
        putChunk(out, 0, size, chunk);
        return direct.write(out);
      }
      const out = this.out;
      out.cork();
      out.write(size + CRLF, 'latin1');
      out.write(Buffer.from(chunk));
      const ok = out.write(CRLF, 'latin1');
      out.uncork();
      return ok;
    }
    return direct !== null ? direct.writeLent(chunk) : this.out.write(Buffer.from(chunk));
  }

  /** The request's end: the last chunk of a chunked body. */
  endBody(mode: BodyMode): void {
    if (mode !== BodyMode.CHUNKED) return;
    if (this.direct !== null) this.direct.write(LAST_CHUNK);
    else this.out.write(LAST_CHUNK);
  }
}
