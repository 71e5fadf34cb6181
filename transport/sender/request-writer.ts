import type net from 'node:net';
import type { SocketOut } from '../direct-write.js';
import { BodyMode } from './sender-handler.js';

const CRLF = '\r\n';
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

/** Ends the cork of RequestWriter.writeHead, on the tick after the head. */
function uncork(s: net.Socket): void {
  s.uncork();
}

/** Writes a head that no body piece came to join in its tick (RequestWriter.writeHead). */
function flushHeldHead(w: RequestWriter): void {
  w.flushHeldHead();
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
 * A body that came with the head (the common small POST: one client read) is written in the head's tick:
 * on a plain connection the head waits for the first piece and both leave in one direct writev (alone on
 * the next tick when none came); through TLS the stream is corked until the next tick.
 */
export class RequestWriter {
  private heldHead: string | null = null;

  /**
   * @param out     the stream writes go to; a TLS session over a proxy tunnel replaces the plain socket.
   * @param direct  plain TCP to the backend: writes straight to the socket's handle (transport/direct-write.ts).
   */
  constructor(public out: net.Socket, private readonly direct: SocketOut | null) {}

  writeHead(head: string, bodyFollows: boolean): boolean {
    if (this.direct !== null) {
      if (!bodyFollows) return this.direct.writeLatin1(head);
      this.heldHead = head;
      process.nextTick(flushHeldHead, this);
      return true;
    }
    const out = this.out;
    if (bodyFollows) {
      out.cork();
      process.nextTick(uncork, out);
    }
    return out.write(head, 'latin1');
  }

  /** The held head, alone: no body piece came in its tick. */
  flushHeldHead(): void {
    const head = this.heldHead;
    if (head === null) return;
    this.heldHead = null;
    this.direct!.writeLatin1(head);
  }

  writeBody(chunk: Buffer, mode: BodyMode): boolean {
    const head = this.heldHead;
    if (head !== null && chunk.length > 0) {
      this.heldHead = null;
      return this.direct!.writev(mode === BodyMode.CHUNKED ? [head, chunk.length.toString(16) + CRLF, chunk, CRLF] : [head, chunk]);
    }
    if (mode === BodyMode.CHUNKED) {
      if (chunk.length === 0) return true;
      const out = this.out;
      out.cork();
      out.write(chunk.length.toString(16) + CRLF, 'latin1');
      out.write(chunk);
      const ok = out.write(CRLF, 'latin1');
      out.uncork();
      return ok;
    }
    return this.out.write(chunk);
  }

  /** The request's end: the last chunk of a chunked body (with a head still held, in the same write). */
  endBody(mode: BodyMode): void {
    const head = this.heldHead;
    if (head !== null) {
      this.heldHead = null;
      this.direct!.writev(mode === BodyMode.CHUNKED ? [head, LAST_CHUNK] : [head]);
      return;
    }
    if (mode === BodyMode.CHUNKED) this.out.write(LAST_CHUNK);
  }

  /** The connection closed: a head still held is never written. */
  drop(): void {
    this.heldHead = null;
  }
}
