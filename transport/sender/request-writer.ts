import type net from 'node:net';
import type { SocketOut } from '../direct-write.js';
import { BodyMode } from './sender-handler.js';

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

  writeBody(chunk: Buffer, mode: BodyMode): boolean {
    if (mode === BodyMode.CHUNKED) {
      if (chunk.length === 0) return true;
      const size = chunk.length.toString(16) + CRLF;
      if (this.direct !== null) return this.direct.writev([size, chunk, CRLF]);
      const out = this.out;
      out.cork();
      out.write(size, 'latin1');
      out.write(chunk);
      const ok = out.write(CRLF, 'latin1');
      out.uncork();
      return ok;
    }
    return this.direct !== null ? this.direct.write(chunk) : this.out.write(chunk);
  }

  /** The request's end: the last chunk of a chunked body. */
  endBody(mode: BodyMode): void {
    if (mode !== BodyMode.CHUNKED) return;
    if (this.direct !== null) this.direct.write(LAST_CHUNK);
    else this.out.write(LAST_CHUNK);
  }
}
