import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from 'pino';
import { ProtocolState, stateName } from '../../transport/protocol-state.js';
import { BackendTransportError, TRANSPORT_ERRORS, TransportErrorCode } from '../../transport/transport-errors.js';
import type { Exchange } from '../../transport/sender/exchange.js';
import { BodyMode, type SenderHandler } from '../../transport/sender/sender-handler.js';
import type { ApiRuntime, ResourceRuntime } from './api-router.js';
import type { BackendTarget } from './backend-target.js';
import type { ApiEndpoints } from './deployed-apis.js';
import { statusLine, type FaultFacts, type FaultInfo, type FaultRenderer } from './fault.js';
import { PhaseResult, type GatewayPhase, type PhaseStep } from './phase.js';
import { buildBackendHead, writeResponseHead, type HeaderRules } from '../../transport/header-rules.js';
import { CHUNK_FRAMING_BYTES, CORK_BUFFER_SIZE, HEAD_SLACK_BYTES, MAX_PIECE_PER_CORK } from '../../transport/uws-cork.js';
import { handlerError, type HandlerError } from '../../mediation/api-handler-errors.js';
import type { WorkerPool } from './worker-pool.js';
import type { ApiMediation } from './api-mediation.js';
import type { CallFacts } from '../../mediation/index.js';
import type { TraceRecord } from './telemetry/types.js';
import type { RepeatedWarnings } from '../log/repeated-warnings.js';
import { performance } from 'node:perf_hooks';

/** What a message needs from its io thread. */
export interface GatewayRuntime {
  readonly log: Logger;
  /** Per-call warnings (backend failures, timeouts) go through it: one line per kind and window, with a count. */
  readonly warnings: RepeatedWarnings;
  readonly phases: readonly GatewayPhase[];
  /** The phases' onRequest, bound, in the same order (phase.ts). */
  readonly phaseSteps: readonly PhaseStep[];
  readonly faults: FaultRenderer;
  readonly headerRules: HeaderRules;
  readonly workerPool: WorkerPool;
  readonly mediation: ApiMediation;
  readonly ioBufferSize: number;
  /** A message ended (answered, failed or abandoned): release its slot, publish the call event. */
  onMessageDone(ctx: MessageContext): void;
  /** A message started: tracked for the global timeout and graceful stop. */
  onMessageStart(ctx: MessageContext): void;
  /** The thread is stopping: responses close their connection. */
  readonly draining: boolean;
}

/** Who a token speaks for: validated once, cached, shared by the calls that present it. */
export interface TokenFacts {
  readonly application: string;
  readonly subscriber: string;
  readonly consumerKey: string;
  readonly keyType: 'PRODUCTION' | 'SANDBOX';
  /** The end user (the application owner for application tokens). */
  readonly user: string;
  readonly userType: 'APPLICATION' | 'APPLICATION_USER';
  readonly scopes: readonly string[];
  /** JWT `jti`, or the base64url SHA-256 of an opaque token: the revocation key. */
  readonly tokenId: string;
  readonly tokenType: 'JWT' | 'OPAQUE';
  /** The application's throttling policy. */
  readonly applicationTier: string;
  /** The token's claims (JWT), for claim-based throttling and the backend JWT. */
  readonly claims: Readonly<Record<string, unknown>> | null;
  /** When the token expires, ms since epoch. */
  readonly expiresAt: number;
}

/** Who is calling (the token's facts) and the subscription this call uses. */
export interface AuthContext extends TokenFacts {
  /** The subscription's throttling policy for this API. */
  readonly tier: string;
}

/**
 * The step that ends the pipeline in place of the HTTP sender. A WebSocket handshake sets one
 * (engine/websocket/handshake.ts): when every phase has continued, it opens the backend WebSocket and
 * upgrades the client instead of starting an HTTP exchange. It answers through the context like the
 * sender does (`fault`, `onError`, `respond`, or `finish` once upgraded).
 */
export interface TerminalStep {
  dispatch(ctx: MessageContext): void;
}

/** Where the message is in its life, for logs and the access log. */
export const MessagePhase = {
  RECEIVED: 0,
  QUEUED: 1,
  PIPELINE: 2,
  SENDING: 3,
  RESPONDING: 4,
  DONE: 5,
} as const;
export type MessagePhase = (typeof MessagePhase)[keyof typeof MessagePhase];

const NONE: readonly string[] = Object.freeze([]);

/** The message's hold on a worker pool slot. */
export const Slot = {
  NONE: 0,
  WAITING: 1,
  HELD: 2,
} as const;
export type Slot = (typeof Slot)[keyof typeof Slot];

let corkTarget: MessageContext | null = null;
let corkChunk: Buffer | null = null;
let corkResult = true;
let corkFn: (() => void) | null = null;
const corkHead = (): void => { corkTarget!.writeHeadCorked(); };
const corkData = (): void => { corkResult = corkTarget!.writeDataCorked(corkChunk!); };
const corkEnd = (): void => { corkTarget!.endCorked(); };
const corkPiece = (): void => { corkResult = corkTarget!.res.write(corkChunk!); };
const corkBatch = (): void => {
  const ctx = corkTarget!;
  const fn = corkFn!;
  ctx.inCork = true;
  ctx.corkBytes = 0;
  try { fn(); } finally { ctx.inCork = false; }
};

/** The bytes of a head written with writeStatus and writeHeader (uWS writes strings as UTF-8). */
function headBytes(status: number, headers: readonly (readonly [string, string])[], extra: readonly string[]): number {
  let n = statusLine(status).length + 11;
  for (const [k, v] of headers) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 4;
  for (let i = 0; i < extra.length; i++) n += Buffer.byteLength(extra[i]!) + 2;
  return n;
}

/**
 * One call through the gateway, from the uWS request to the end of the response: the request facts, what
 * the phases found (API, resource, caller), the backend exchange and the streaming state both ways.
 * Created once per call with every field set here (a fixed shape), and the SenderHandler of its exchange.
 */
export class MessageContext implements SenderHandler {
  // ---- the request ----
  method = '';
  /** Path as received (no query), e.g. `/pizzashack/1.0.0/menu`. */
  path = '';
  /** Query without `?`, '' when none. */
  query = '';
  /** Flat [name, value, ...], names lower-case as uWS gives them. */
  readonly reqHeaders: string[] = [];
  clientIp = '';
  secure = false;
  /** Its place in the io thread's InFlightCalls, -1 when not listed. */
  inFlightIndex = -1;
  /** -1: no Content-Length. */
  contentLength = -1;
  chunked = false;
  readonly startedAt: number;

  // ---- what the phases found ----
  api: ApiRuntime | null = null;
  resource: ResourceRuntime | null = null;
  resourcePath = '/';
  /** Set by authenticate: the validated token. */
  token: TokenFacts | null = null;
  /** Set by authorize: the token's facts with this call's subscription. */
  auth: AuthContext | null = null;
  target: BackendTarget | null = null;
  /** The API's endpoints in the deployment the call was routed on: a redeployment never changes them under the call. */
  endpoints: ApiEndpoints | null = null;
  /** Replaces the HTTP sender at the end of the phases (a WebSocket handshake); null for HTTP calls. */
  terminal: TerminalStep | null = null;
  // Headers the phases add or remove, made on first use only (most calls need none).
  private addedBackend: string[] | null = null;
  private removedBackend: string[] | null = null;
  private addedResponse: string[] | null = null;
  /** Properties set by mediation or phases for later phases and the fault sequences. */
  properties: Map<string, unknown> | null = null;
  /** Trace ids of the call, set by the trace phase when tracing is on (engine/gateway/telemetry/trace.ts). */
  trace: TraceRecord | null = null;
  phaseIndex = 0;
  phase: MessagePhase = MessagePhase.RECEIVED;
  slot: Slot = Slot.NONE;

  // ---- the client side ----
  aborted = false;
  /** A byte of the response has been written to the client. */
  responseStarted = false;
  finished = false;
  private clientPaused = false;
  private pendingBody: Buffer[] | null = null;
  private pendingBytes = 0;
  private bodyComplete = false;
  /** The body must be whole before the call goes on (validation, content-aware mediation). */
  bufferWholeBody = false;
  private bodyWaiter: (() => void) | null = null;

  // ---- the backend side ----
  exchange: Exchange | null = null;
  respStatus = 0;
  private respStatusText = '';
  /** The backend's response headers, flat, as received (null before they arrive). */
  respHeaders: string[] | null = null;
  /** Content-Length of the response, -1 when chunked or close-delimited. */
  private respTotal = -1;
  private respNoBody = false;
  private stash: Buffer | null = null;
  private stashOffset = 0;
  private backendDone = false;
  respBytes = 0;
  /** Inside a uWS cork: writes go straight to the batch. */
  inCork = false;
  /** Inside the batch's cork: at most this many bytes are in uWS's cork buffer (uws-cork.ts). */
  corkBytes = 0;
  /** Chunked body pieces that would not surely fit the batch's cork: written after it, in corks of their own. */
  private deferredChunks: Buffer[] | null = null;
  /** The response's end waits for the deferred pieces. */
  private endDeferred = false;
  /** The API's out sequence reads the body: the response is held whole and written at its end. */
  private heldResponse: Buffer[] | null = null;
  /** The fault that ended the call, for logs and the access log. */
  errorCode = 0;
  errorMessage = '';
  /** A transport error's base code and protocol state (metrics); 0 / -1 when the call had none. */
  errorBase = 0;
  errorState = -1;
  backendStartedAt = 0;
  backendLatencyMs = -1;

  constructor(readonly gw: GatewayRuntime, readonly res: HttpResponse) {
    this.startedAt = performance.now();
  }

  get hasBody(): boolean {
    return this.contentLength > 0 || this.chunked;
  }

  header(name: string): string | undefined {
    const h = this.reqHeaders;
    for (let i = 0; i < h.length; i += 2) if (h[i] === name) return h[i + 1];
    return undefined;
  }

  /** Request headers the phases add for the backend (X-JWT-Assertion...), flat [name, value, ...]. */
  get extraBackendHeaders(): readonly string[] {
    return this.addedBackend ?? NONE;
  }

  addBackendHeaders(...nameValues: string[]): void {
    (this.addedBackend ??= []).push(...nameValues);
  }

  /** Request header names (lower-case) the phases consumed and that must not reach the backend. */
  get removedBackendHeaders(): readonly string[] {
    return this.removedBackend ?? NONE;
  }

  removeBackendHeader(lowerName: string): void {
    const list = (this.removedBackend ??= []);
    if (!list.includes(lowerName)) list.push(lowerName);
  }

  /** Response headers the phases add for the client (CORS, rate limits), flat [name, value, ...]. */
  get extraResponseHeaders(): readonly string[] {
    return this.addedResponse ?? NONE;
  }

  addResponseHeaders(...nameValues: string[]): void {
    (this.addedResponse ??= []).push(...nameValues);
  }

  // ---- request body from the client ----------------------------------------------------------------

  /** The uWS onData handler of this call (made only for calls with a body). */
  dataHandler(): (ab: ArrayBuffer, isLast: boolean) => void {
    return (ab, isLast) => this.onClientData(ab, isLast);
  }

  /** uWS onData: copies the chunk (uWS reuses its memory) and passes it on or keeps it. */
  onClientData(ab: ArrayBuffer, isLast: boolean): void {
    if (this.finished) return;
    const chunk = ab.byteLength ? Buffer.copyBytesFrom(new Uint8Array(ab)) : null;
    if (isLast) this.bodyComplete = true;
    const ex = this.exchange;
    if (ex !== null && !this.bufferWholeBody) {
      if (chunk !== null && !ex.write(chunk)) this.pauseClient();
      if (isLast) ex.end();
      return;
    }
    if (chunk !== null) {
      (this.pendingBody ??= []).push(chunk);
      this.pendingBytes += chunk.length;
      // Unless the whole body is wanted, hold no more than a few buffers' worth before dispatch.
      if (!this.bufferWholeBody && this.pendingBytes > this.gw.ioBufferSize * 4) this.pauseClient();
    }
    if (isLast && this.bodyWaiter !== null) {
      const w = this.bodyWaiter;
      this.bodyWaiter = null;
      w();
    }
  }


  /** Calls `then` once the whole request body is here (at once when there is none or it already is). */
  whenBodyComplete(then: () => void): void {
    this.bufferWholeBody = true;
    if (!this.hasBody || this.bodyComplete) { then(); return; }
    this.resumeClient();
    this.bodyWaiter = then;
  }

  /** The whole body, when `whenBodyComplete` has run. */
  bufferedBody(): Buffer {
    const p = this.pendingBody;
    if (p === null) return Buffer.alloc(0);
    if (p.length === 1) return p[0]!;
    const all = Buffer.concat(p);
    this.pendingBody = [all];
    return all;
  }

  /** Replaces the buffered body (mediation rewrote it). */
  replaceBody(body: Buffer): void {
    this.pendingBody = [body];
    this.pendingBytes = body.length;
    this.bodyComplete = true;
  }

  private pauseClient(): void {
    if (this.clientPaused || this.aborted) return;
    this.clientPaused = true;
    this.res.pause();
  }

  private resumeClient(): void {
    if (!this.clientPaused || this.aborted) return;
    this.clientPaused = false;
    this.res.resume();
  }

  readonly onClientAborted = (): void => {
    this.aborted = true;
    if (this.finished) return;
    const ex = this.exchange;
    if (this.hasBody && !this.bodyComplete) {
      this.errorCode = TransportErrorCode.INCOMPLETE_PAYLOAD;
      this.errorMessage = 'Incomplete payload';
      this.gw.warnings.warn(`102511 ${this.api?.def.id ?? ''}`, { code: 102511, method: this.method, path: this.path, state: ex ? stateName(ex.state) : 'REQUEST_READY' },
        'client closed the connection before the request body was complete; backend request aborted');
    } else if (ex !== null) {
      this.errorCode = TransportErrorCode.CONNECTION_CANCELED;
      this.errorMessage = 'Connection canceled';
      this.gw.log.debug({ code: 101507, path: this.path, state: stateName(ex.state) }, 'client went away; backend exchange canceled');
    }
    if (ex !== null) ex.abort();
    this.finish();
  };

  // ---- the pipeline ----------------------------------------------------------------------------------

  /** The worker pool gave this message a slot: start the phases. */
  onSlot(): void {
    this.slot = Slot.HELD;
    this.proceed();
  }

  /** Runs the phases from where the message is; dispatches to the backend when all continue. */
  proceed(): void {
    if (this.finished) return;
    this.phase = MessagePhase.PIPELINE;
    const steps = this.gw.phaseSteps;
    while (this.phaseIndex < steps.length) {
      const i = this.phaseIndex++;
      let r: PhaseResult;
      try {
        r = steps[i]!(this);
      } catch (err) {
        const name = this.gw.phases[i]?.name ?? String(i);
        this.gw.log.error({ phase: name, err: (err as Error).message, stack: (err as Error).stack }, 'phase failed');
        this.fault({ code: 101510, status: 500, message: 'Runtime Error', description: `Error while processing the request (${name})`, sequence: 'fault' });
        return;
      }
      if (r === PhaseResult.CONTINUE) continue;
      return;
    }
    this.dispatch();
  }

  /** Starts the backend exchange (the sender is the terminal phase), or the terminal step when there is one. */
  private dispatch(): void {
    if (this.terminal !== null) {
      this.phase = MessagePhase.SENDING;
      this.terminal.dispatch(this);
      return;
    }
    const target = this.target;
    if (target === null) {
      this.fault({ code: 101503, status: 503, message: 'Runtime Error', description: 'No endpoint is configured for this API', sequence: 'fault' });
      return;
    }
    this.phase = MessagePhase.SENDING;
    let bodyMode: BodyMode = BodyMode.NONE;
    let length = this.contentLength;
    if (this.bufferWholeBody && (this.hasBody || this.pendingBody !== null)) {
      length = this.pendingBytes;
      bodyMode = BodyMode.CONTENT_LENGTH;
    } else if (this.chunked) {
      bodyMode = BodyMode.CHUNKED;
    } else if (this.contentLength > 0) {
      bodyMode = BodyMode.CONTENT_LENGTH;
    }
    const head = buildBackendHead(this, target, this.gw.headerRules, bodyMode, length);
    this.backendStartedAt = performance.now();
    const ex = target.pool.dispatch({
      head,
      bodyMode,
      isHead: this.method === 'HEAD',
      retryable: bodyMode === BodyMode.NONE,
    }, this);
    if (ex.isFinished) return;
    this.exchange = ex;
    if (bodyMode !== BodyMode.NONE) {
      const pending = this.pendingBody;
      this.pendingBody = null;
      this.pendingBytes = 0;
      let ok = true;
      if (pending !== null) for (const c of pending) ok = ex.write(c) && ok;
      if (this.bodyComplete) ex.end();
      else if (ok) this.resumeClient();
    }
  }

  // ---- SenderHandler: the backend's side ---------------------------------------------------------------

  onConnect(): void {}

  batch(parse: () => void): void {
    if (this.aborted || this.finished || this.inCork) { parse(); return; }
    corkTarget = this;
    corkFn = parse;
    this.res.cork(corkBatch);
    corkFn = null;
    if (this.deferredChunks !== null || this.endDeferred) this.flushDeferred();
  }

  /** After the batch's cork: the chunked pieces that did not fit it, then the end if it came. */
  private flushDeferred(): void {
    const chunks = this.deferredChunks;
    this.deferredChunks = null;
    let ok = true;
    if (chunks !== null) for (let i = 0; i < chunks.length && !this.aborted; i++) ok = this.writePieces(chunks[i]!) && ok;
    if (this.finished || this.aborted) return;
    if (this.endDeferred) {
      this.endDeferred = false;
      corkTarget = this;
      this.res.cork(corkEnd);
      return;
    }
    // The pieces were taken (uWS keeps what the client cannot read yet): stop reading the backend for now.
    if (!ok) this.exchange?.pause();
  }

  onRequestSent(): void {}

  onDrain(): void {
    this.resumeClient();
  }

  onHeaders(status: number, statusText: string, headers: string[], _keepAlive: boolean, bodyLength: number): void {
    if (this.finished) return;
    this.backendLatencyMs = performance.now() - this.backendStartedAt;
    this.phase = MessagePhase.RESPONDING;
    this.respStatus = status;
    this.respStatusText = statusText;
    this.respHeaders = headers;
    const noBody = this.method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
    this.respNoBody = noBody;
    this.respTotal = bodyLength;
    if (status >= 500 && this.gw.headerRules.warnOnHttp500(this.target?.host ?? '')) {
      this.gw.warnings.warn(`5xx ${this.target?.url ?? ''}`, { status, api: this.api?.def.id, path: this.path }, 'backend answered with a server error');
    }
    const out = this.api?.def.outSequence;
    if (out !== undefined && this.outSequence(out)) return;
    if (this.inCork) { this.writeHeadCorked(); return; }
    corkTarget = this;
    this.res.cork(corkHead);
  }

  /** Inside cork: the status line and headers (the body decides how it ends). */
  writeHeadCorked(): void {
    this.responseStarted = true;
    this.corkBytes += HEAD_SLACK_BYTES
      + writeResponseHead(this.res, this.respStatus, this.respStatusText, this.respHeaders!, this.gw.headerRules, this.extraResponseHeaders);
    // Stopping, a chunked body: uWS's own close at the end would write its header into the body, so the head
    // says it and the client closes (a Content-Length body decides at its first piece, writeDataCorked).
    if (this.gw.draining && this.respTotal < 0 && !this.respNoBody) this.res.writeHeader('Connection', 'close');
  }

  onData(chunk: Buffer): boolean {
    if (this.finished || this.aborted) return true;
    // The chunk may be a view of the backend connection's read buffer (SenderHandler.onData): kept, it is copied.
    if (this.heldResponse !== null) { this.heldResponse.push(Buffer.from(chunk)); return true; }
    this.respBytes += chunk.length;
    if (this.respTotal < 0) return this.writeChunk(chunk);
    if (this.inCork) return this.writeDataCorked(chunk);
    corkTarget = this;
    corkChunk = chunk;
    this.res.cork(corkData);
    corkChunk = null;
    return corkResult;
  }

  /**
   * Inside cork: one piece of a Content-Length body; false when the client cannot take more now. tryEnd
   * reports how far it got, so a piece the cork could not take is resumed from the right byte.
   */
  writeDataCorked(chunk: Buffer): boolean {
    const res = this.res;
    if (this.gw.draining && this.respBytes === chunk.length && this.closingFirstPiece(chunk)) return true;
    const [ok, done] = res.tryEnd(chunk, this.respTotal);
    if (done) { this.backendDone = true; this.finish(); return true; }
    if (!ok) {
      // Every earlier chunk was taken whole (or we would have stopped): this one starts where they end.
      this.stash = Buffer.from(chunk);
      this.stashOffset = this.respBytes - chunk.length;
      res.onWritable(this.writableHandler());
      return false;
    }
    return true;
  }

  /**
   * Stopping, the first piece of a Content-Length body (the head is still open). The whole body in one piece
   * that fits the cork: `end` with close, which says Connection: close and closes the socket once the
   * response is out, whatever the client does. Otherwise the head says Connection: close and the client
   * closes. True when the response has ended.
   */
  private closingFirstPiece(chunk: Buffer): boolean {
    if (chunk.length === this.respTotal && this.corkBytes + chunk.length + HEAD_SLACK_BYTES <= CORK_BUFFER_SIZE) {
      this.res.end(chunk, true);
      this.backendDone = true;
      this.finish();
      return true;
    }
    this.res.writeHeader('Connection', 'close');
    return false;
  }

  /**
   * One piece of a chunked (or close-delimited) body; false when the client cannot take more now.
   * `res.write` has no offset to resume from, so it must never overflow a cork holding bytes (uws-cork.ts):
   * inside the batch's cork a piece is written only when it surely fits, otherwise it waits until the
   * batch's cork is sent. No copy: that happens before the read that carried the chunk returns, while the
   * chunk is still valid (SenderHandler.onData).
   */
  private writeChunk(chunk: Buffer): boolean {
    if (!this.inCork) return this.writePieces(chunk);
    if (this.deferredChunks === null && this.corkBytes + chunk.length + CHUNK_FRAMING_BYTES <= CORK_BUFFER_SIZE) {
      this.corkBytes += chunk.length + CHUNK_FRAMING_BYTES;
      if (this.res.write(chunk)) return true;
      this.res.onWritable(this.writableHandler());
      return false;
    }
    (this.deferredChunks ??= []).push(chunk);
    return true;
  }

  /** Outside any cork: the chunk in pieces, each in a cork of its own that it fits. */
  private writePieces(chunk: Buffer): boolean {
    let ok = true;
    for (let at = 0; at < chunk.length && !this.aborted; at += MAX_PIECE_PER_CORK) {
      corkTarget = this;
      corkChunk = chunk.length <= MAX_PIECE_PER_CORK ? chunk : chunk.subarray(at, at + MAX_PIECE_PER_CORK);
      this.res.cork(corkPiece);
      ok = corkResult && ok;
    }
    corkChunk = null;
    if (!ok && !this.aborted) this.res.onWritable(this.writableHandler());
    return ok;
  }

  /** Made on the first back-pressure only: most calls never need it. */
  private onClientWritable: ((offset: number) => boolean) | null = null;

  private writableHandler(): (offset: number) => boolean {
    return this.onClientWritable ??= (offset) => this.clientWritable(offset);
  }

  private clientWritable(offset: number): boolean {
    if (this.finished || this.aborted) return true;
    const stash = this.stash;
    if (stash !== null) {
      const [ok, done] = this.res.tryEnd(stash.subarray(offset - this.stashOffset), this.respTotal);
      if (done) { this.stash = null; this.finish(); return true; }
      if (!ok) return false;
      this.stash = null;
    }
    if (this.backendDone) {
      if (this.respTotal < 0) { this.res.end(); this.finish(); }
      return true;
    }
    this.exchange?.resume();
    return true;
  }


  onComplete(): void {
    if (this.finished) return;
    this.backendDone = true;
    if (this.aborted) { this.finish(); return; }
    if (this.heldResponse !== null) { this.completeHeldResponse(); return; }
    if (this.stash !== null) return; // the client's writable event finishes the response
    if (this.inCork) {
      // After deferred pieces, or where even the last chunk might overflow the cork: after the batch.
      if (this.deferredChunks !== null || this.corkBytes + CHUNK_FRAMING_BYTES > CORK_BUFFER_SIZE) this.endDeferred = true;
      else this.endCorked();
      return;
    }
    corkTarget = this;
    this.res.cork(corkEnd);
  }

  /**
   * The API's out sequence on the response head. Content-aware: hold the body and run at the end
   * (returns true: nothing written yet). Otherwise: run now on status and headers, then stream.
   */
  private outSequence(name: string): boolean {
    const med = this.gw.mediation;
    const seq = med.get(name);
    if (seq === undefined) {
      this.gw.log.warn({ api: this.api?.def.id, sequence: name }, 'the out sequence of this API is not deployed; response passed as it is');
      return false;
    }
    if (med.touchesBody(name) && !this.respNoBody) { this.heldResponse = []; return true; }
    const r = med.run(seq, 'response', this.callFacts(), this.respHeaders!, null, this.respStatus);
    if (r.kind === 'continue') {
      this.respStatus = r.status;
      this.respHeaders = r.headers.flat();
      return false;
    }
    this.exchange?.abort();
    this.exchange = null;
    if (r.kind === 'respond') this.respond(r.status, r.headers, r.body);
    else if (r.kind === 'drop') this.respond(202, [], null);
    else this.fault({ code: 101510, status: 500, message: 'Response processing failed', description: `The out sequence ${name} failed`, sequence: this.api?.def.faultSequence ?? 'fault' });
    return true;
  }

  private completeHeldResponse(): void {
    const name = this.api!.def.outSequence!;
    const body = Buffer.concat(this.heldResponse!);
    this.heldResponse = null;
    const r = this.gw.mediation.run(this.gw.mediation.get(name)!, 'response', this.callFacts(), this.respHeaders!, body, this.respStatus);
    if (r.kind === 'error') {
      this.fault({ code: 101510, status: 500, message: 'Response processing failed', description: `The out sequence ${name} failed`, sequence: this.api?.def.faultSequence ?? 'fault' });
      return;
    }
    if (r.kind === 'drop') { this.respond(202, [], null); return; }
    const headers = r.kind === 'respond' ? r.headers : r.headers.filter(([k]) => !this.gw.headerRules.dropsResponseHeader(k.toLowerCase()));
    this.respond(r.status, headers, r.body);
  }

  /** Facts about the call for mediation (get-property('api.ut.api') and friends). */
  callFacts(): CallFacts {
    const api = this.api?.def;
    const a = this.auth;
    return {
      method: this.method,
      path: this.query ? `${this.path}?${this.query}` : this.path,
      clientIp: this.clientIp,
      ...(api ? { apiName: api.name, apiVersion: api.version, apiContext: api.context } : {}),
      ...(this.resource ? { resource: this.resource.def.uriTemplate } : {}),
      ...(a ? { applicationName: a.application, applicationOwner: a.subscriber, consumerKey: a.consumerKey, userId: a.user, keyType: a.keyType, subscriptionTier: a.tier } : {}),
    };
  }

  /** Inside cork: end of the response to the client. */
  endCorked(): void {
    if (this.finished) return;
    const res = this.res;
    // Stopping: the connection closes after a response whose head is still open here (no body written).
    const close = this.gw.draining;
    if (this.respNoBody) {
      // HEAD: report the length the backend reported, and send no body.
      const cl = this.method === 'HEAD' && this.respTotal < 0 ? contentLengthOf(this.respHeaders!) : -1;
      if (cl >= 0) {
        res.endWithoutBody(cl, close);
      } else {
        // uWS's close needs a length to report, which a 204 or 304 must not carry: the head says it instead.
        if (close) res.writeHeader('Connection', 'close');
        res.endWithoutBody();
      }
    } else if (this.respTotal >= 0) {
      // Content-Length bodies end in tryEnd; a zero-length one has no chunk to do it.
      if (this.respTotal === 0) res.end(undefined, close);
      else if (this.respBytes < this.respTotal) res.end();
    } else {
      res.end();
    }
    this.finish();
  }

  onError(err: BackendTransportError): void {
    if (this.finished) return;
    this.exchange = null;
    this.errorBase = err.base;
    this.errorState = err.state;
    if (this.responseStarted) {
      // The status is already out: the only honest signal left is to cut the connection.
      this.gw.warnings.warn(`${err.code} ${this.target?.url ?? ''} incomplete`, { code: err.code, base: err.base, state: stateName(err.state), api: this.api?.def.id, path: this.path, reason: err.reason },
        `${err.message}: the response was incomplete, client connection closed`);
      this.errorCode = err.code;
      this.errorMessage = err.detail;
      if (!this.aborted) this.res.close();
      this.finish();
      return;
    }
    this.gw.warnings.warn(`${err.code} ${this.target?.url ?? ''}`, { code: err.code, base: err.base, state: stateName(err.state), api: this.api?.def.id, path: this.path, reason: err.reason, backend: this.target?.url },
      err.message);
    this.fault({
      code: err.code,
      status: err.status,
      message: TRANSPORT_ERRORS[err.base]!.detail,
      description: err.description,
      sequence: this.api?.def.faultSequence ?? 'fault',
    });
  }

  // ---- faults and local answers ------------------------------------------------------------------------

  /**
   * Raises one of seed 000's API handler errors with its message, status and fault sequence; `extra` may
   * sharpen the description or add headers (WWW-Authenticate, Retry-After).
   */
  raise(code: number, extra?: { readonly description?: string; readonly headers?: readonly (readonly [string, string])[]; readonly sequence?: string; readonly status?: number }): void {
    const e: HandlerError | undefined = handlerError(code);
    this.fault({
      code,
      status: extra?.status ?? e?.status ?? 500,
      message: e?.message ?? 'Error',
      description: extra?.description ?? e?.description ?? '',
      sequence: extra?.sequence ?? e?.sequence ?? 'fault',
      ...(extra?.headers ? { headers: extra.headers } : {}),
    });
  }

  /** Answers the call with a fault rendered by its sequence. */
  fault(info: FaultInfo): void {
    if (this.finished) return;
    this.errorCode = info.code;
    this.errorMessage = info.message;
    if (this.exchange !== null) { this.exchange.abort(); this.exchange = null; }
    if (this.aborted) { this.finish(); return; }
    if (this.responseStarted) { this.res.close(); this.finish(); return; }
    const rendered = this.gw.faults.render(info, this.facts());
    this.respond(rendered.status, rendered.headers, rendered.body);
  }

  /** Answers the call locally (faults, CORS preflight). The request body, if any, is not read. */
  respond(status: number, headers: readonly (readonly [string, string])[], body: Buffer | null): void {
    if (this.finished) return;
    this.respStatus = status;
    if (this.aborted) { this.finish(); return; }
    const res = this.res;
    this.responseStarted = true;
    const extra = this.extraResponseHeaders;
    // The request body was not read: close rather than guess where the next request starts. Stopping: close.
    const close = (this.hasBody && !this.bodyComplete) || this.gw.draining;
    // `end(body)` has no offset to resume from: a body that might overflow the cork after the head is
    // ended outside it, where uWS keeps whatever the client cannot take yet (uws-cork.ts).
    const inline = body === null || body.length + headBytes(status, headers, extra) + HEAD_SLACK_BYTES <= CORK_BUFFER_SIZE;
    res.cork(() => {
      res.writeStatus(statusLine(status));
      for (const [k, v] of headers) res.writeHeader(k, v);
      for (let i = 0; i < extra.length; i += 2) res.writeHeader(extra[i]!, extra[i + 1]!);
      if (!inline) return;
      if (body === null) res.endWithoutBody(0, close);
      else res.end(body, close);
    });
    if (!inline && !this.aborted) res.end(body!, close);
    this.respBytes = body?.length ?? 0;
    this.finish();
  }

  facts(): FaultFacts {
    const api = this.api?.def;
    return {
      method: this.method,
      path: this.path,
      clientIp: this.clientIp,
      ...(api ? { apiName: api.name, apiVersion: api.version, apiContext: api.context } : {}),
      ...(this.resource ? { resource: this.resource.def.uriTemplate } : {}),
      ...(this.auth ? { application: this.auth.application, user: this.auth.user } : {}),
    };
  }

  /** The message is over for the gateway: release the worker slot, publish the call. Runs once. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.phase = MessagePhase.DONE;
    this.pendingBody = null;
    this.stash = null;
    this.gw.onMessageDone(this);
  }

  /** The global timeout passed with no complete response: answer 504 and drop what comes later. */
  timedOut(limitMs: number): void {
    if (this.finished) return;
    const state = this.exchange?.state ?? ProtocolState.REQUEST_READY;
    this.gw.warnings.warn(`global-timeout ${this.api?.def.id ?? ''}`, { api: this.api?.def.id, path: this.path, state: stateName(state), limitMs },
      'no complete response within synapse.global_timeout_interval; the late response will be dropped');
    const err = new BackendTransportError(TransportErrorCode.CONNECTION_TIMED_OUT, state, 'global timeout');
    if (this.responseStarted) { this.onError(err); return; }
    this.errorBase = err.base;
    this.errorState = err.state;
    this.fault({ code: err.code, status: 504, message: err.detail, description: err.description, sequence: this.api?.def.faultSequence ?? 'fault' });
  }
}

function contentLengthOf(headers: readonly string[]): number {
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i]!.toLowerCase() === 'content-length') return Number(headers[i + 1]);
  }
  return -1;
}
