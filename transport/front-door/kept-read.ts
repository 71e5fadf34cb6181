import { RequestHead } from './request-head.js';
import { checkHead } from './framing.js';
import { METHODS } from '../sender/http-parser.js';
import type { DoorSettings } from '../../conf/views/front-door.js';
import { KeptReadBytes } from '../kept-read-bytes.js';

/**
 * The last client read that held exactly one whole request and nothing else (a head, and its body when
 * Content-Length gave it one; the connection kept alive), with what llhttp made of its head. A later read
 * that repeats its head byte for byte and then holds exactly that many body bytes, on a connection whose
 * parser stands between messages, is answered from it, and llhttp is not called.
 *
 * Why: steady traffic repeats its requests whole (a client polls one resource with one token), and parsing
 * a head is the largest cost of a small call that the gateway can skip. llhttp as Node builds it scans a
 * header value a byte at a time, some six instructions a byte: a secured call's 1 KB bearer token alone
 * cost 6 000 (callgrind, docs/performance.md), and Node's binding makes a string of each field and value and
 * crosses into JavaScript for the head. A compare of the whole read is one memcmp.
 *
 * Why it is safe: llhttp is deterministic. From the state between two messages of a kept-alive connection
 * (every such state is the same: llhttp resets its message state when a message completes), the same bytes
 * make the same callbacks. So a read is kept only when it began at such a boundary, made exactly one head,
 * that head kept the connection alive and was not chunked, and the read ended with its message (nothing of
 * a next message started in it); and a read is answered from it only when the connection's parser is at
 * such a boundary too (client-connection.ts decides both). A body framed by Content-Length is bytes llhttp
 * counts and hands over whatever they hold: after the same head, a read with exactly that many more bytes
 * makes the same head, one body piece of those bytes and the message's end, whatever they are. The door's
 * own rules (framing, the target's normalisation) run on the kept arguments as on any head, once: the same
 * arguments always make the same head, and each replayed call gets a copy of it.
 *
 * One per front door (io thread): a kept read of one connection serves the same bytes on another, which is
 * what that connection's own parse would have made of them. Its size is bounded by the head limits.
 */
export class KeptRead {
  /** The kept read's head bytes and its length (a repeat has the same head and as much body). */
  private readonly read = new KeptReadBytes();
  /** The arguments llhttp gave for the kept read's head (its fields as sent are read, never changed). */
  private args: ReadHead | null = null;
  /** The head the door's rules made of the kept arguments, once (client-connection.ts copies it per call). */
  head: RequestHead | null = null;
  /** Reads answered from the kept one (tests, docs). */
  hits = 0;

  /**
   * The head of a read that repeats the kept one: the door's rules run on the kept arguments the first time
   * (the same arguments always make the same head), and each call gets a copy of what they made. Null when
   * the rules refuse it, which a kept head never is (the caller parses the read then).
   */
  replay(cfg: DoorSettings): RequestHead | null {
    let t = this.head;
    if (t === null) {
      const a = this.args!;
      t = new RequestHead();
      if (checkHead(cfg, t, a.major, a.minor, a.headers, METHODS[a.method] ?? '', a.url, false) !== null) return null;
      this.head = t;
    }
    this.hits++;
    return t.copy();
  }

  /**
   * Whether the `n`-byte read in `chunk` repeats the kept one: its head's bytes, and as many body bytes.
   * `words`: `chunk`'s memory as 32-bit words from its first byte, or null (kept-read-bytes.ts).
   */
  repeats(chunk: Buffer, n: number, words: Int32Array | null): boolean {
    return this.read.repeats(chunk, n, words);
  }

  /**
   * A read llhttp parsed from a boundary between messages to one (the caller says so), with what its
   * callbacks gave (`args`): kept when it made one head that may be kept, and its body (by Content-Length)
   * is its last bytes after a blank line. True: kept, and `args` is the kept read's now.
   */
  offer(chunk: Buffer, n: number, args: ReadHead): boolean {
    const body = args.body;
    if (args.heads !== 1 || !args.keepable || body !== (args.contentLength > 0 ? args.contentLength : 0) || !endsWithBlankLine(chunk, n - body)) return false;
    this.keep(chunk, n, body, args);
    return true;
  }

  /** Keeps the head of `chunk` (a read of `n` bytes whose last `body` were its body) and `args`. */
  private keep(chunk: Buffer, n: number, body: number, args: ReadHead): void {
    this.read.hold(chunk, n, n - body);
    this.args = args;
    this.head = null;
  }
}

/** Whether the first `n` bytes of a read end with a head's blank line (CR LF CR LF). */
function endsWithBlankLine(chunk: Buffer, n: number): boolean {
  return n >= 4 && chunk[n - 1] === 10 && chunk[n - 2] === 13 && chunk[n - 3] === 10 && chunk[n - 4] === 13;
}

/** The heads one read made (of one connection), and the arguments of its first while it may be kept. */
export class ReadHead {
  /** Heads made since the read began (the connection resets it). */
  heads = 0;
  /** The first head was not chunked, kept the connection alive, passed the door and came in one piece. */
  keepable = false;
  /** Its Content-Length (-1: none). */
  contentLength = -1;
  /** Body bytes llhttp gave during the read (the connection resets it). */
  body = 0;
  major = 0;
  minor = 0;
  headers: string[] = [];
  method = 0;
  url = '';

  /** A read begins. */
  begin(): void {
    this.heads = 0;
    this.body = 0;
  }

  note(keepable: boolean, contentLength: number, major: number, minor: number, headers: string[] | undefined, method: number, url: string | undefined): void {
    if (++this.heads !== 1) return;
    this.keepable = keepable && headers !== undefined && url !== undefined;
    this.contentLength = contentLength;
    this.major = major; this.minor = minor; this.headers = headers ?? []; this.method = method; this.url = url ?? '';
  }
}
