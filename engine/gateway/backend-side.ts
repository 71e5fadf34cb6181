import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../errors/gateway.js';
import { BodyFraming } from '../../transport/front-door/client-exchange.js';
import { buildBackendHead, responseHeaderLines } from '../../transport/header-rules.js';
import { ProtocolState, stateName } from '../../transport/protocol-state.js';
import { BodyMode, type SenderHandler } from '../../transport/sender/sender-handler.js';
import { isIdempotent } from '../../transport/sender/idempotent-methods.js';
import { BackendTransportError, TransportErrorCode } from '../../transport/transport-errors.js';
import { CallStage } from '../kernel/call.js';
import { reasonPhrase } from '../kernel/fault.js';
import { AnsweringCall, UnsafeIn } from './call-answers.js';
import { responseTooLarge, unsafeRequestHeader, unsafeResponseHeader } from './safety-faults.js';

const NONE: readonly string[] = Object.freeze([]);

/**
 * The third layer of MessageContext: the call's backend exchange, the sender being the terminal phase. It
 * writes the backend head, streams the request body on, and relays the response to the client as it comes
 * (SenderHandler), through the API's out sequence when it has one: on the head only, or on the whole body
 * held up to its cap when the sequence reads the body. Backend failures become the seed's transport faults.
 */
export class BackendSide extends AnsweringCall implements SenderHandler {
  /** Starts the backend exchange: every phase continued and the call has no other terminal step. */
  protected sendToBackend(): void {
    const target = this.target;
    if (target === null) {
      this.raise(GatewayError.NO_ENDPOINT);
      return;
    }
    this.phase = CallStage.SENDING;
    let bodyMode: BodyMode = BodyMode.NONE;
    let length = this.contentLength;
    const held = this.body;
    if (this.bufferWholeBody && (this.hasBody || held !== null)) {
      length = held?.bytes ?? 0;
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
        this.fault(bad === UnsafeIn.MEDIATED ? unsafeRequestHeader(this.faultSequence) : GatewayError.ADDED_HEADER_UNWRITABLE);
        return;
      }
    }
    const head = buildBackendHead(this, target, this.gw.headerRules, bodyMode, length);
    this.backendStartedAt = performance.now();
    const ex = target.pool.dispatch({
      head,
      bodyMode,
      isHead: this.method === 'HEAD',
      retryable: bodyMode === BodyMode.NONE && isIdempotent(this.method),
    }, this);
    if (ex.isFinished) return;
    this.exchange = ex;
    if (bodyMode !== BodyMode.NONE) {
      this.x.continueBody();
      const pending = held?.take() ?? null;
      let ok = true;
      if (pending !== null) for (const c of pending) ok = ex.write(c) && ok;
      if (this.bodyComplete) ex.end();
      else if (ok) this.resumeClient();
    }
  }

  // ---- SenderHandler: the backend's side ---------------------------------------------------------------

  onConnect(): void {}

  onRequestSent(): void {}

  onDrain(): void {
    this.resumeClient();
  }

  onHeaders(status: number, statusText: string, headers: string[], _keepAlive: boolean, bodyLength: number): void {
    if (this.finished) return;
    this.backendLatencyMs = performance.now() - this.backendStartedAt;
    this.phase = CallStage.RESPONDING;
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
    if ((this.respMediated || this.addedResponseUnchecked) && this.unsafeHead(this.respMediated ? this.respHeaders! : NONE, this.extraResponseHeaders) !== UnsafeIn.NONE) {
      this.fault(unsafeResponseHeader(this.faultSequence));
      return;
    }
    this.writeHead();
  }

  /** The backend's status line and headers for the client (the body decides how it ends). */
  private writeHead(): void {
    this.responseStarted = true;
    // The numbers (X-RateLimit) go apart, as bytes: the head's other lines stay the kept ones.
    let lines = responseHeaderLines(this.respHeaders!, this.gw.headerRules, this.addedResponse ?? NONE);
    let framing: number;
    if (this.respNoBody) {
      framing = BodyFraming.NONE;
      // HEAD: the length the backend reported goes along, with no body.
      if (this.method === 'HEAD') { const cl = contentLengthOf(this.respHeaders!); if (cl >= 0) lines += `content-length: ${cl}\r\n`; }
    } else {
      framing = this.respTotal >= 0 ? this.respTotal : BodyFraming.STREAM;
    }
    this.x.writeHead(this.respStatus, this.respStatusText || reasonPhrase(this.respStatus), lines, framing, false, this.addedNumbers);
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
    const sequence = this.faultSequence;
    if (unsafeHeader) this.fault(unsafeResponseHeader(sequence));
    else this.raise(GatewayError.OUT_SEQUENCE_FAILED, { description: `The out sequence ${name} failed`, sequence });
  }

  /** 502: the response held for the out sequence passed its cap; the backend connection is dropped. */
  private responseTooLarge(limit: number): void {
    this.heldResponse = null;
    this.gw.log.warn({ api: this.api?.def.id, path: this.path, limit, contentLength: this.respTotal, backend: this.target?.url },
      'backend response over the cap of what the out sequence may hold: 502');
    this.fault(responseTooLarge(limit, this.faultSequence));
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
    this.fault({ code: err.code, status: err.status, message: err.detail, description: err.description, sequence: this.faultSequence });
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
    this.fault({ code: err.code, status: 504, message: err.detail, description: err.description, sequence: this.faultSequence });
  }
}

function contentLengthOf(headers: readonly string[]): number {
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i]!.toLowerCase() === 'content-length') return Number(headers[i + 1]);
  }
  return -1;
}
