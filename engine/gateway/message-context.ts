import { ApiHandlerError } from '../../errors/api-handler.js';
import { TransportError } from '../../errors/transport.js';
import type { ExchangeHandler } from '../../transport/front-door/client-exchange.js';
import { REFUSALS, type DoorRefusal } from '../../transport/front-door/refusals.js';
import { stateName } from '../../transport/protocol-state.js';
import { BodyBuffer } from '../kernel/body-buffer.js';
import { CallStage, type Call } from '../kernel/call.js';
import { runPhases } from '../kernel/phase-runner.js';
import { BackendSide } from './backend-side.js';
import { Slot } from './call-state.js';
import { requestTooLarge } from './safety-faults.js';

/**
 * One call through the gateway, from the front door's request to the end of the response: the call context
 * the phases see (kernel/call.ts). It is one object in four layers, each a file with one responsibility:
 *   call-state.ts     the call's facts: the request, what the phases found, counters (a fixed shape)
 *   call-answers.ts   local answers and faults, rendered by the fault sequences
 *   backend-side.ts   the backend exchange (the terminal phase) and the response relayed to the client
 *   this file         the client's request body, and the call's way through the phases (kernel/phase-runner.ts)
 * The client's side is a ClientSide (kernel/response-writer.ts): the front door's exchange on a socket, or a
 * fake one in a phase test.
 */
export class MessageContext extends BackendSide implements Call, ExchangeHandler {
  // ---- request body from the client ----------------------------------------------------------------

  /**
   * ExchangeHandler: a piece of the request body from the front door, only lent (valid during this call):
   * the backend exchange copies what it cannot send in this turn, and what the call holds is a copy.
   */
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
      const held = (this.body ??= new BodyBuffer());
      const copy = Buffer.from(chunk);
      if (this.bufferWholeBody) {
        // Held whole: refused as soon as it passes the cap (chunked, or more bytes than its Content-Length said).
        const limit = this.requestBodyLimit();
        if (!held.push(copy, limit)) { this.bodyTooLarge(limit); return; }
      } else if (!held.push(copy, this.gw.ioBufferSize * 4)) {
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
    this.fault(r.fault);
  }

  /**
   * Calls `then` once the whole request body is here (at once when there is none or it already is). A body
   * over the cap (requestBodyLimit) is answered 413 instead, at once when its Content-Length says so, and
   * `then` never runs.
   */
  whenBodyComplete(then: () => void): void {
    this.bufferWholeBody = true;
    const limit = this.requestBodyLimit();
    if (this.contentLength > limit || (this.body?.bytes ?? 0) > limit) { this.bodyTooLarge(limit); return; }
    if (!this.hasBody || this.bodyComplete) { then(); return; }
    this.x.continueBody();
    this.resumeClient();
    this.bodyWaiter = then;
  }

  /** The whole body, when `whenBodyComplete` has run. */
  bufferedBody(): Buffer {
    return this.body === null ? Buffer.alloc(0) : this.body.whole();
  }

  /** Replaces the buffered body (mediation rewrote it). */
  replaceBody(body: Buffer): void {
    (this.body ??= new BodyBuffer()).replace(body);
    this.bodyComplete = true;
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
    this.body = null;
    this.bodyWaiter = null;
    this.gw.log.info({ api: this.api?.def.id, method: this.method, path: this.path, limit, contentLength: this.contentLength },
      'request body over the cap of what the gateway reads whole: 413, connection: close, the rest of the body dropped');
    // The answer says Connection: close; the front door reads and drops the rest of the body first (lingering).
    if (this.hasBody && !this.bodyComplete) this.resumeClient();
    this.fault(requestTooLarge(limit, this.faultSequence));
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
      const e = ApiHandlerError.INCOMPLETE_PAYLOAD;
      this.errorCode = e.code;
      this.errorMessage = e.message;
      this.gw.warnings.warn(`${e.code} ${this.api?.def.id ?? ''}`, { code: e.code, method: this.method, path: this.path, state: ex ? stateName(ex.state) : 'REQUEST_READY' },
        'client closed the connection before the request body was complete; backend request aborted');
    } else if (ex !== null) {
      const e = TransportError.CONNECTION_CANCELED;
      this.errorCode = e.code;
      this.errorMessage = e.message;
      this.gw.log.debug({ code: e.code, path: this.path, state: stateName(ex.state) }, 'client went away; backend exchange canceled');
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

  /** Runs the phases from where the message is; then the terminal step: the sender, or a WebSocket handshake. */
  proceed(): void {
    if (this.finished) return;
    this.phase = CallStage.PIPELINE;
    if (!runPhases(this, this.gw.pipeline, this.gw.log)) return;
    if (this.terminal !== null) {
      this.phase = CallStage.SENDING;
      this.terminal.dispatch(this);
      return;
    }
    this.sendToBackend();
  }
}
