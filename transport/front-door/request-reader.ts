import { HTTPParser, METHODS, STOP_AT_HEAD, kOnBody, kOnHeaders, kOnHeadersComplete, kOnMessageBegin, kOnMessageComplete, type LlhttpParser } from '../sender/http-parser.js';
import type { DoorConfig } from '../../conf/views/front-door.js';
import { checkHead } from './framing.js';
import { RequestHead } from './request-head.js';
import { HeadParts } from './head-parts.js';
import type { DoorRefusal } from './refusals.js';
import { ReadHead, type KeptRead } from './kept-read.js';
import type { ClientExchange } from './client-exchange.js';
import { turnNow } from '../event-turn.js';
import { Reading } from './connection-state.js';
import { unreportedParseError } from '../sender/unreported-parse-error.js';

/**
 * The reading half of a client connection (client-connection.ts): Node's llhttp and the door's reading
 * state, the replay of a kept read (kept-read.ts), and the bytes of a Content-Length body, read past llhttp.
 * What a head becomes (an exchange, a refusal) and what a broken read is answered with are the
 * connection's: `admitHead` and `onParseError`.
 */
export abstract class RequestReader {
  protected readonly parser: LlhttpParser = new HTTPParser();
  /** The exchange whose body is being read; null between messages. */
  protected parsing: ClientExchange | null = null;
  protected reading: Reading = Reading.IDLE;
  closed = false;
  /** The parser calls onMessageComplete: only while llhttp reads the body of the message (a chunked one). */
  private completeHooked = false;
  /** The first message has begun: from then on the parser's message clock is set (`inHead`). */
  private begun = false;
  private readonly headParts = new HeadParts();
  /** Where the last parse stopped in its read (after a WebSocket upgrade's head, the frames that follow). */
  protected upgradeEnd = 0;
  /** The parser is known to stand between messages: since the open, or after a read kept or replayed (kept-read.ts). */
  protected clean = true;
  /** The last head kept the connection alive and asked no upgrade: llhttp takes a next message after it. */
  protected reusable = true;
  private readHead = new ReadHead();
  /** Bytes still to come of the body being read past llhttp (a Content-Length body: readBody). */
  protected bodyLeft = 0;
  /** llhttp stands at a message's first byte after a head that stopped it (its body was read past it). */
  private startAfterStop = false;
  /** Heads llhttp completed on this connection (onHeadersComplete). */
  private heads = 0;
  protected headStartedAt: number;

  /** The limit llhttp applies: it counts the request line too, and the target's own limit is checked after. */
  private get maxHeadBytes(): number { return this.cfg.maxTargetBytes + this.cfg.maxHeaderBytes; }

  constructor(protected readonly cfg: DoorConfig, protected readonly kept: KeptRead) {
    const p = this.parser;
    p.initialize(HTTPParser.REQUEST, {}, this.maxHeadBytes, 0);
    // Only the connection's first message-begin calls back: it sets the parser's own clock of the current
    // message, which `inHead` reads from then on (llhttp leaves it unset before). A callback per message
    // costs a crossing from C++ into JavaScript on every call (docs/performance.md).
    p[kOnMessageBegin] = this.onFirstMessageBegin;
    p[kOnHeaders] = this.onHeaders;
    p[kOnHeadersComplete] = this.onHeadersComplete;
    p[kOnBody] = this.onBody;
    this.headStartedAt = Date.now();
  }

  /** The connection's next exchange, from a head the door judged (`refusal` null: it passed); what llhttp is told. */
  protected abstract admitHead(head: RequestHead, refusal: DoorRefusal | null, upgrade: boolean, keepAlive: boolean): number;

  /** llhttp found the read broken. */
  protected abstract onParseError(err: Error): void;

  /**
   * A read that repeats the kept one, as llhttp would have given it: the head, then (when it has a body)
   * one piece of the body's bytes (a view of the read: pieces are lent) and the message's end.
   */
  protected replay(head: RequestHead, chunk: Buffer, n: number): void {
    this.clean = true;
    this.admitHead(head, null, false, true);
    if (this.bodyLeft > 0) this.readBody(chunk, n - this.bodyLeft, n);
  }

  /** Hands a read to llhttp (false: a parse error); keeps it when it may be replayed (kept-read.ts says when). */
  protected parse(chunk: Buffer, n: number): boolean {
    const wasClean = this.clean && this.reading === Reading.IDLE;
    this.clean = false;
    const h = this.readHead;
    h.begin();
    let at = this.bodyLeft > 0 ? this.readBody(chunk, 0, n) : 0;
    while (at < n && !this.closed && this.reading !== Reading.STOPPED) {
      const input = at === 0 ? chunk : chunk.subarray(at, n);
      const afterStop = this.startAfterStop;
      const heads = this.heads;
      this.startAfterStop = false;
      let r = this.parser.execute(input);
      // A head begun here and not complete after a stop: Node's binding may hide llhttp's error, as a short count
      // or even at the input's end (unreported-parse-error.ts). A parser made new reads it again, and reports one.
      if (afterStop && !(r instanceof Error) && this.heads === heads && !this.closed) r = this.parseAfresh(input);
      if (r instanceof Error) { this.onParseError(r); return false; }
      at += r;
      this.upgradeEnd = at;
      if (at === n) break;
      if (this.bodyLeft === 0) {
        // Stopped short with no body to read: a refused or upgraded head stopped llhttp, or llhttp found an
        // error Node's binding did not report after an earlier stop (unreported-parse-error.ts).
        if (this.closed || (this.reading as Reading) === Reading.STOPPED || !this.reusable) break;
        this.onParseError(unreportedParseError(HTTPParser.REQUEST, this.maxHeadBytes, input, r));
        return false;
      }
      // Stopped at a head whose body is read past llhttp; the bytes after that body go to llhttp again.
      at = this.readBody(chunk, at, n);
    }
    // Ended between messages: the whole read was taken, the door reads on, and no next message began.
    if (wasClean && at === n && !this.closed && this.reading === Reading.IDLE && this.parser.duration() === 0 && this.kept.offer(chunk, n, h)) {
      this.readHead = new ReadHead(); // the kept read holds that one now
      this.clean = true;
    }
    return true;
  }

  // ---- llhttp ----------------------------------------------------------------------------------------

  private readonly onFirstMessageBegin = (): number => {
    this.parser[kOnMessageBegin] = undefined;
    this.begun = true;
    this.reading = Reading.HEAD;
    this.headStartedAt = turnNow();
    return 0;
  };

  /**
   * Whether a request head is being read: the first one by the door's own state, a later one by the
   * parser's (its message clock runs from a message's first byte and is 0 once the message is complete;
   * a head ends in BODY, STOPPED, or a message complete at once).
   */
  protected inHead(): boolean {
    if (this.reading === Reading.HEAD) return true;
    return this.reading === Reading.IDLE && this.begun && this.parser.duration() !== 0 && !this.parser.headersCompleted();
  }

  /** Milliseconds inside the current head (`inHead`). */
  protected headMs(now: number): number {
    return this.reading === Reading.HEAD ? now - this.headStartedAt : this.parser.duration();
  }

  /** More than 32 fields, or a head split across reads: llhttp hands the fields over in parts. */
  private readonly onHeaders = (headers: string[], url: string): void => {
    if (this.reading !== Reading.HEAD && this.reading !== Reading.IDLE) return; // trailers of a chunked body: not forwarded
    this.headParts.add(headers, url);
  };

  private readonly onHeadersComplete = (major: number, minor: number, headers: string[] | undefined, method: number, url: string | undefined,
    _status: number, _text: string, upgrade: boolean, keepAlive: boolean): number => {
    this.heads++;
    const parts = this.headParts;
    parts.join(headers, url);
    const raw = parts.joinedFields;
    const target = parts.joinedTarget;
    const head = new RequestHead();
    const refusal = checkHead(this.cfg, head, major, minor, raw ?? [], METHODS[method] ?? '', target ?? '', upgrade);
    this.readHead.note(raw === headers && refusal === null && keepAlive && !upgrade && !head.chunked, head.contentLength, major, minor, raw, method, target);
    return this.admitHead(head, refusal, upgrade, keepAlive);
  };

  protected hookComplete(on: boolean): void {
    if (this.completeHooked === on) return;
    this.completeHooked = on;
    this.parser[kOnMessageComplete] = on ? this.onMessageComplete : undefined;
  }

  private readonly onBody = (chunk: Buffer): void => {
    this.readHead.body += chunk.length;
    this.parsing?.deliverBody(chunk, false);
  };

  /** `input` again, from a message's start, on the parser made new (its upgrade flag gone); no head of it completed. */
  private parseAfresh(input: Buffer): number | Error {
    this.parser.initialize(HTTPParser.REQUEST, {}, this.maxHeadBytes, 0);
    this.headParts.reset();
    return this.parser.execute(input);
  }

  /**
   * The bytes of a Content-Length body from `at` in a read of `n` bytes, past llhttp: its head stopped the
   * parser (admitHead), which reads the next message from its start. llhttp would give each piece as a copy
   * of its own, memory V8 counts against its heap limit (transport/turn-arena.ts says what that cost); here
   * each is a view of the read, lent to the exchange. Returns where the body's bytes in this read end.
   */
  private readBody(chunk: Buffer, at: number, n: number): number {
    const left = this.bodyLeft;
    const k = n - at < left ? n - at : left;
    this.bodyLeft = left - k;
    this.readHead.body += k;
    if (this.reading === Reading.BODY) this.parsing?.deliverBody(at === 0 && k === chunk.length ? chunk : chunk.subarray(at, at + k), false);
    if (this.bodyLeft === 0) { this.startAfterStop = true; this.onMessageComplete(); }
    return at + k;
  }

  /** The end of a request body (hooked only while one is read: onHeadersComplete). */
  protected readonly onMessageComplete = (): void => {
    const x = this.parsing;
    // A refused or upgraded head also completes its message (STOP_AT_HEAD): the door reads no further.
    if (this.reading === Reading.STOPPED || x === null) return;
    this.parsing = null;
    this.reading = Reading.IDLE;
    this.headStartedAt = 0;
    x.deliverBody(null, true);
  };
}
