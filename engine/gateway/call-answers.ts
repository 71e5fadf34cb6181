import { faultOf, type ErrorEntry, type FaultExtra, type FaultInfo } from '../../errors/error-entry.js';
import { GatewayError } from '../../errors/gateway.js';
import type { CallFacts } from '../../mediation/index.js';
import { builtinFaultBody } from '../../mediation/fault.js';
import { BodyFraming } from '../../transport/front-door/client-exchange.js';
import { fieldProblem, firstUnsafeField, firstUnsafePair } from '../../transport/field-values.js';
import { headerLines } from '../../transport/header-rules.js';
import { CallStage } from '../kernel/call.js';
import { reasonPhrase, type FaultFacts } from '../kernel/fault.js';
import { CallState } from './call-state.js';

/** Where a head about to be written holds a field no head may carry (AnsweringCall.unsafeHead). */
export const UnsafeIn = { NONE: 0, MEDIATED: 1, ADDED: 2 } as const;
export type UnsafeIn = (typeof UnsafeIn)[keyof typeof UnsafeIn];

const UNWRITABLE_HEADERS: readonly (readonly [string, string])[] = [['Content-Type', 'application/json']];

/**
 * The second layer of MessageContext: how a call is answered without the backend, or instead of it. A fault
 * is rendered by its fault sequence (kernel/fault.ts); a local answer (a preflight, a sequence's response) is
 * written as it is, unless a header in it could not be written safely. Every answer ends the call.
 */
export class AnsweringCall extends CallState {
  /** Answers with a catalogue error (errors/), with what the call site sharpens (a description, headers). */
  raise(error: ErrorEntry, extra?: FaultExtra): void {
    this.fault(faultOf(error, extra));
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
    if (badAt >= 0 || (this.addedResponseUnchecked && firstUnsafeField(this.extraResponseHeaders) >= 0)) {
      const bad = headers[badAt];
      this.gw.log.error({ api: this.api?.def.id, path: this.path, status, problem: bad ? fieldProblem(bad[0], bad[1]) : 'a header added by a phase' },
        'a local answer carried a header no head may carry; the built-in fault body is sent instead');
      const e = GatewayError.LOCAL_ANSWER_UNWRITABLE;
      this.dropAddedResponse();
      this.errorCode = e.code;
      headers = UNWRITABLE_HEADERS;
      status = e.status;
      body = builtinFaultBody(e.code, e.message, e.description);
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

  /** Facts about the call a fault sequence may read. */
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

  /**
   * Whether a head about to be written holds a field no head may carry (transport/field-values.ts), in the
   * fields mediation rewrote or the ones phases added; logs which, never the value. Both heads are written
   * byte per character (latin1), so a character above U+00FF is refused either way.
   */
  protected unsafeHead(mediated: readonly string[], added: readonly string[]): UnsafeIn {
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
    this.phase = CallStage.DONE;
    this.body = null;
    this.gw.onMessageDone(this);
  }
}
