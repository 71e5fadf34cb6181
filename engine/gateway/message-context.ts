import type { Logger } from 'pino';
import { ProtocolState, stateName } from '../../transport/protocol-state.js';
import { BackendTransportError, TRANSPORT_ERRORS, TransportErrorCode } from '../../transport/transport-errors.js';
import type { Exchange } from '../../transport/sender/exchange.js';
import { BodyMode, type SenderHandler } from '../../transport/sender/sender-handler.js';
import type { ApiRuntime, ResourceRuntime } from './api-router.js';
import type { BackendTarget } from './backend-target.js';
import type { ApiEndpoints } from './deployed-apis.js';
import { reasonPhrase, type FaultFacts, type FaultInfo, type FaultRenderer } from './fault.js';
import { PhaseResult, type GatewayPhase, type PhaseStep } from './phase.js';
import { buildBackendHead, responseHeaderLines, headerLines, type HeaderRules } from '../../transport/header-rules.js';
import { BodyFraming, type ClientExchange, type ExchangeHandler } from '../../transport/front-door/client-exchange.js';
import { REFUSALS, type DoorRefusal } from '../../transport/front-door/refusals.js';
import { handlerError, type HandlerError } from '../../mediation/api-handler-errors.js';
import { builtinFaultBody } from '../../mediation/fault.js';
import { fieldProblem, firstUnsafeField, firstUnsafePair } from '../../transport/field-values.js';
import { requestTooLarge, responseTooLarge, unsafeRequestHeader, unsafeResponseHeader } from './safety-faults.js';
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
  /** Caps of what must be held whole: request bodies and out-sequence responses, bytes ([passthru_http]). */
  readonly bufferLimits: BufferLimits;
  /** A message ended (answered, failed or abandoned): release its slot, publish the call event. */
  onMessageDone(ctx: MessageContext): void;
  /** A message started: tracked for the global timeout and graceful stop. */
  onMessageStart(ctx: MessageContext): void;
}

/** [passthru_http] max_buffered_request_body_size / max_buffered_response_body_size; an API may lower or raise either. */
export interface BufferLimits {
  readonly request: number;
  readonly response: number;
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
  /** API_KEY and BASIC: the API's other security schemes (engine/security/api-key-auth.ts, basic-auth.ts). */
  readonly tokenType: 'JWT' | 'OPAQUE' | 'API_KEY' | 'BASIC';
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
  /** The client went away before the step answered. */
  abort(): void;
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

/** Where a head about to be written holds a field no head may carry (MessageContext.unsafeHead). */
const UnsafeIn = { NONE: 0, MEDIATED: 1, ADDED: 2 } as const;
type UnsafeIn = (typeof UnsafeIn)[keyof typeof UnsafeIn];

/** The message's hold on a worker pool slot. */
export const Slot = {
  NONE: 0,
  WAITING: 1,
  HELD: 2,
} as const;
export type Slot = (typeof Slot)[keyof typeof Slot];

/**
 * One call through the gateway, from the front door's request to the end of the response: the request facts, what
 * the phases found (API, resource, caller), the backend exchange and the streaming state both ways.
 * Created once per call with every field set here (a fixed shape), and the SenderHandler of its exchange.
 */
export class MessageContext implements SenderHandler, ExchangeHandler {
  // ---- the request ----
  method = '';
  /** The normalised path (no query), e.g. `/pizzashack/1.0.0/menu` (transport/front-door/request-target.ts). */
  path = '';
  /** Query without `?`, '' when none. */
  query = '';
  /** Fewest path segments left while `..` segments were resolved, -1 when there were none (RequestHead). */
  minDepth = -1;
  /** Flat [name, value, ...], names lower-case (the front door's RequestHead). */
  reqHeaders: string[];
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
  /** An in sequence rewrote `reqHeaders`: they are checked whole before the backend head is written. */
  headersMediated = false;
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
  bodyComplete = false;
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
  respBytes = 0;
  /** Request body bytes received from the client (metrics). */
  reqBytes = 0;
  /** The API's out sequence reads the body: the response is held whole and written at its end. */
  private heldResponse: Buffer[] | null = null;
  /** The answer ends the client connection (a refusal at the door's level: what follows cannot be trusted). */
  closeConnection = false;
  private heldBytes = 0;
  private heldLimit = 0;
  /** An out sequence rewrote `respHeaders`: they are checked whole before the response head is written. */
  private respMediated = false;
  /** The fault that ended the call, for logs and the access log. */
  errorCode = 0;
  errorMessage = '';
  /** A transport error's base code and protocol state (metrics); 0 / -1 when the call had none. */
  errorBase = 0;
  errorState = -1;
  backendStartedAt = 0;
  backendLatencyMs = -1;

  constructor(readonly gw: GatewayRuntime, readonly x: ClientExchange) {
    this.startedAt = performance.now();
    const h = x.head;
    this.method = h.method;
    this.path = h.path;
    this.query = h.query;
    this.minDepth = h.minDepth;
    this.reqHeaders = h.headers;
    this.contentLength = h.contentLength;
    this.chunked = h.chunked;
    this.bodyComplete = !h.hasBody;
    this.clientIp = x.clientIp;
    this.secure = x.secure;
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

  /** ExchangeHandler: a piece of the request body (a Buffer of our own) from the front door. */
  onRequestBody(chunk: Buffer | null, isLast: boolean): void {
    if (this.finished) return;
    if (chunk !== null) this.reqBytes += chunk.length;
    if (isLast) this.bodyComplete = true;
    const ex = this.exchange;
    if (ex !== null && !this.bufferWholeBody) {
      if (chunk !== null && chunk.length > 0 && !ex.write(chunk)) this.pauseClient();
      if (isLast) ex.end();
      return;
    }
    if (chunk !== null && chunk.length > 0) {
      (this.pendingBody ??= []).push(chunk);
      this.pendingBytes += chunk.length;
      if (this.bufferWholeBody) {
        // Held whole: refused as soon as it passes the cap (chunked, or more bytes than its Content-Length said).
        const limit = this.requestBodyLimit();
        if (this.pendingBytes > limit) { this.bodyTooLarge(limit); return; }
      } else if (this.pendingBytes > this.gw.ioBufferSize * 4) {
        // Unless the whole body is wanted, hold no more than a few buffers' worth before dispatch.
        this.pauseClient();
      }
    }
    if (isLast && this.bodyWaiter !== null) {
      const w = this.bodyWaiter;
      this.bodyWaiter = null;
      w();
    }
  }

  /** ExchangeHandler: the request's body broke the framing rules (or stopped arriving): answered, then closed. */
  onRequestError(r: DoorRefusal): void {
    if (this.finished) return;
    const info = REFUSALS[r.refusal];
    this.gw.warnings.warn(`${info.code} ${this.api?.def.id ?? ''} body`, { code: info.code, method: this.method, path: this.path, status: info.status, state: this.exchange ? stateName(this.exchange.state) : 'REQUEST_READY', reason: r.description },
      'the request body broke off; answered and the backend request aborted');
    this.fault({ code: info.code, status: info.status, message: info.message, description: r.description, sequence: 'fault' });
  }

  /**
   * Calls `then` once the whole request body is here (at once when there is none or it already is). A body
   * over the cap (requestBodyLimit) is answered 413 instead, at once when its Content-Length says so, and
   * `then` never runs.
   */
  whenBodyComplete(then: () => void): void {
    this.bufferWholeBody = true;
    const limit = this.requestBodyLimit();
    if (this.contentLength > limit || this.pendingBytes > limit) { this.bodyTooLarge(limit); return; }
    if (!this.hasBody || this.bodyComplete) { then(); return; }
    this.x.continueBody();
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

  /** The most this call's request body may take when it must be held whole: the API's own cap, else the node's. */
  requestBodyLimit(): number {
    return this.api?.def.maxBufferedRequestBodySize ?? this.gw.bufferLimits.request;
  }

  /**
   * 413; nothing went to the backend. Unless the body is all here, the answer says `Connection: close` and
   * the rest of the body is read and dropped, never held: closing at once, with the client's bytes still
   * unread, makes the kernel reset the connection, and the client may lose the 413 it has not read yet
   * (the lingering close of nginx and Apache; docs/decisions.md). The client closes (RFC 9112 §9.6).
   */
  private bodyTooLarge(limit: number): void {
    this.pendingBody = null;
    this.pendingBytes = 0;
    this.bodyWaiter = null;
    this.gw.log.info({ api: this.api?.def.id, method: this.method, path: this.path, limit, contentLength: this.contentLength },
      'request body over the cap of what the gateway reads whole: 413, connection: close, the rest of the body dropped');
    // The answer says Connection: close; the front door reads and drops the rest of the body first (lingering).
    if (this.hasBody && !this.bodyComplete) this.resumeClient();
    this.fault(requestTooLarge(limit, this.api?.def.faultSequence ?? 'fault'));
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
    this.x.pauseBody();
  }

  private resumeClient(): void {
    if (!this.clientPaused || this.aborted) return;
    this.clientPaused = false;
    this.x.resumeBody();
  }

  /** ExchangeHandler: the client connection closed before the response ended. */
  onClientGone(): void {
    this.onClientAborted();
  }

  readonly onClientAborted = (): void => {
    this.aborted = true;
    if (this.finished) return;
    this.terminal?.abort();
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
    // What mediation or a phase wrote into the request head is checked once more before it is written.
    if (this.headersMediated || this.addedBackend !== null) {
      const bad = this.unsafeHead(this.headersMediated ? this.reqHeaders : NONE, this.extraBackendHeaders);
      if (bad !== UnsafeIn.NONE) {
        // From the request (mediation copied it): the client's 400. From a phase (its configuration): ours.
        this.fault(bad === UnsafeIn.MEDIATED ? unsafeRequestHeader(this.api?.def.faultSequence ?? 'fault')
          : { code: TransportErrorCode.RESPONSE_PROCESSING_FAILURE, status: 500, message: 'Runtime Error', description: 'A header the gateway adds could not be written', sequence: 'fault' });
        return;
      }
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
      this.x.continueBody();
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

  /** One backend read: what it makes us write to the client leaves in one write. */
  batch(parse: () => void): void {
    if (this.aborted || this.finished) { parse(); return; }
    this.x.batch(parse);
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
    // The backend's own fields were parsed by llhttp; what mediation or a phase wrote is checked once more.
    if ((this.respMediated || this.addedResponse !== null) && this.unsafeHead(this.respMediated ? this.respHeaders! : NONE, this.extraResponseHeaders) !== UnsafeIn.NONE) {
      this.fault(unsafeResponseHeader(this.api?.def.faultSequence ?? 'fault'));
      return;
    }
    this.writeHead();
  }

  /** The backend's status line and headers for the client (the body decides how it ends). */
  private writeHead(): void {
    this.responseStarted = true;
    let lines = responseHeaderLines(this.respHeaders!, this.gw.headerRules, this.extraResponseHeaders);
    let framing: number;
    if (this.respNoBody) {
      framing = BodyFraming.NONE;
      // HEAD: the length the backend reported goes along, with no body.
      if (this.method === 'HEAD') { const cl = contentLengthOf(this.respHeaders!); if (cl >= 0) lines += `content-length: ${cl}\r\n`; }
    } else {
      framing = this.respTotal >= 0 ? this.respTotal : BodyFraming.STREAM;
    }
    this.x.writeHead(this.respStatus, this.respStatusText || reasonPhrase(this.respStatus), lines, framing);
  }

  onData(chunk: Buffer): boolean {
    if (this.finished || this.aborted) return true;
    // The chunk may be a view of the backend connection's read buffer (SenderHandler.onData): kept, it is copied.
    if (this.heldResponse !== null) {
      this.heldBytes += chunk.length;
      if (this.heldBytes > this.heldLimit) { this.responseTooLarge(this.heldLimit); return true; }
      this.heldResponse.push(Buffer.from(chunk));
      return true;
    }
    this.respBytes += chunk.length;
    // The exchange copies what it writes (the socket would otherwise hold a view of a reused buffer).
    return this.x.write(chunk);
  }

  /** ExchangeHandler: the client took what waited; the backend may go on. */
  onWritable(): void {
    if (this.finished || this.aborted) return;
    this.exchange?.resume();
  }

  onComplete(): void {
    if (this.finished) return;
    if (this.aborted) { this.finish(); return; }
    if (this.heldResponse !== null) { this.completeHeldResponse(); return; }
    this.x.end();
    this.finish();
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
    if (med.touchesBody(name) && !this.respNoBody) {
      const limit = this.api?.def.maxBufferedResponseBodySize ?? this.gw.bufferLimits.response;
      if (this.respTotal > limit) { this.responseTooLarge(limit); return true; }
      this.heldLimit = limit;
      this.heldResponse = [];
      return true;
    }
    const r = med.run(seq, 'response', this.callFacts(), this.respHeaders!, null, this.respStatus);
    if (r.kind === 'continue') {
      this.respStatus = r.status;
      this.respHeaders = r.headers.flat();
      this.respMediated = true;
      return false;
    }
    this.exchange?.abort();
    this.exchange = null;
    if (r.kind === 'respond') this.respond(r.status, r.headers, r.body);
    else if (r.kind === 'drop') this.respond(202, [], null);
    else this.outSequenceFailed(name, r.unsafeHeader);
    return true;
  }

  private outSequenceFailed(name: string, unsafeHeader: boolean): void {
    const sequence = this.api?.def.faultSequence ?? 'fault';
    if (unsafeHeader) this.fault(unsafeResponseHeader(sequence));
    else this.fault({ code: TransportErrorCode.RESPONSE_PROCESSING_FAILURE, status: 500, message: 'Response processing failed', description: `The out sequence ${name} failed`, sequence });
  }

  /** 502: the response held for the out sequence passed its cap; the backend connection is dropped. */
  private responseTooLarge(limit: number): void {
    this.heldResponse = null;
    this.gw.log.warn({ api: this.api?.def.id, path: this.path, limit, contentLength: this.respTotal, backend: this.target?.url },
      'backend response over the cap of what the out sequence may hold: 502');
    this.fault(responseTooLarge(limit, this.api?.def.faultSequence ?? 'fault'));
  }

  private completeHeldResponse(): void {
    const name = this.api!.def.outSequence!;
    const body = Buffer.concat(this.heldResponse!);
    this.heldResponse = null;
    const r = this.gw.mediation.run(this.gw.mediation.get(name)!, 'response', this.callFacts(), this.respHeaders!, body, this.respStatus);
    if (r.kind === 'error') { this.outSequenceFailed(name, r.unsafeHeader); return; }
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
      if (!this.aborted) this.x.abort();
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
    if (this.responseStarted) { this.x.abort(); this.finish(); return; }
    const rendered = this.gw.faults.render(info, this.facts());
    this.respond(rendered.status, rendered.headers, rendered.body);
  }

  /**
   * Answers the call locally (faults, CORS preflight, a sequence's response). The request body, if any, is
   * not read. Headers that no head may carry are not written: the built-in fault body goes instead.
   */
  respond(status: number, headers: readonly (readonly [string, string])[], body: Buffer | null): void {
    if (this.finished) return;
    const badAt = firstUnsafePair(headers);
    if (badAt >= 0 || firstUnsafeField(this.extraResponseHeaders) >= 0) {
      const bad = headers[badAt];
      this.gw.log.error({ api: this.api?.def.id, path: this.path, status, problem: bad ? fieldProblem(bad[0], bad[1]) : 'a header added by a phase' },
        'a local answer carried a header no head may carry; the built-in fault body is sent instead');
      this.addedResponse = null;
      this.errorCode = TransportErrorCode.RESPONSE_PROCESSING_FAILURE;
      headers = [['Content-Type', 'application/json']];
      status = 500;
      body = builtinFaultBody(TransportErrorCode.RESPONSE_PROCESSING_FAILURE, 'Response processing failed', 'The response could not be sent as built');
    }
    this.respStatus = status;
    if (this.aborted) { this.finish(); return; }
    this.responseStarted = true;
    // A request body left unread closes the connection after the answer (client-exchange.ts).
    let lines = headerLines(headers, this.extraResponseHeaders);
    if (this.method === 'HEAD') {
      // A HEAD answer is the GET answer's head without its body (RFC 9110 §9.3.2): a body after it would be
      // read as the start of the next response on a keep-alive connection.
      if (body !== null) lines += `content-length: ${body.length}\r\n`;
      this.x.writeHead(status, reasonPhrase(status), lines, BodyFraming.NONE, this.closeConnection);
      this.x.end(null);
    } else {
      this.x.writeHead(status, reasonPhrase(status), lines, body?.length ?? 0, this.closeConnection);
      this.x.end(body);
    }
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

  /**
   * Whether a head about to be written holds a field no head may carry (transport/field-values.ts), in the
   * fields mediation rewrote or the ones phases added; logs which, never the value. Both heads are written
   * byte per character (latin1), so a character above U+00FF is refused either way.
   */
  private unsafeHead(mediated: readonly string[], added: readonly string[]): UnsafeIn {
    let where: UnsafeIn = UnsafeIn.MEDIATED;
    let list = mediated;
    let at = firstUnsafeField(list);
    if (at < 0) { where = UnsafeIn.ADDED; list = added; at = firstUnsafeField(list); }
    if (at < 0) return UnsafeIn.NONE;
    this.gw.log.warn({ api: this.api?.def.id, path: this.path, problem: fieldProblem(list[at]!, list[at + 1]!) },
      'a header built by mediation or a phase cannot be written; the call is answered with a fault');
    return where;
  }

  /** The message is over for the gateway: release the worker slot, publish the call. Runs once. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.phase = MessagePhase.DONE;
    this.pendingBody = null;
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
