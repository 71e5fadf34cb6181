import { GatewayError } from '../../errors/gateway.js';
import { FaultSequence } from '../../errors/fault-sequences.js';
import {
  MediationMessage, MediationRuntimeError, Outcome, builtinSequenceAsts,
  type CallFacts, type CompiledSequence, type SequenceRegistry, type SequenceSet,
} from '../../mediation/index.js';

/** The sequence names of one WebSocket sender ([transport.ws] or [transport.wss]). */
export interface DispatchNames {
  readonly outflowSequence: string;
  readonly faultSequence: string;
}

/** What mediation does to one message: send it (maybe rewritten), drop it, or answer the client with it. */
export const DispatchAction = {
  /** Send the message on, unchanged. */
  PASS: 0,
  /** Send `body` on instead (`binary` says how). */
  REPLACE: 1,
  DROP: 2,
  /** Inbound only: send `body` back to the client, not to the backend (`respond`, `loopback`). */
  RESPOND: 3,
} as const;
export type DispatchAction = (typeof DispatchAction)[keyof typeof DispatchAction];

export interface DispatchResult {
  action: DispatchAction;
  body: Buffer;
  binary: boolean;
  /** A dispatch sequence failed: the fault sequence's message for the client, or null. */
  faultBody: Buffer | null;
  faultBinary: boolean;
  error: string;
}

const EMPTY = Buffer.alloc(0);
const TEXTUAL = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|application\/[^;]*\+(json|xml))/i;

/** The content type a message is mediated as: binary frames are octet streams, text frames JSON when they look like it. */
function contentTypeOf(data: Buffer, isBinary: boolean): string {
  if (isBinary) return 'application/octet-stream';
  for (let i = 0; i < data.length && i < 64; i++) {
    const c = data[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c === 0x7b || c === 0x5b) return 'application/json';
    if (c === 0x3c) return 'application/xml';
    break;
  }
  return 'text/plain';
}

/** A sequence that does nothing: no mediator and no onError (the shipped dispatchSeq and outDispatchSeq). */
function isPassThrough(set: SequenceSet, name: string): boolean {
  const ast = set.sequences.find((s) => s.name === name) ?? builtinSequenceAsts().get(name);
  return ast === undefined || (ast.body.length === 0 && ast.onError === null);
}

/**
 * The dispatch sequences of WebSocket messages, compiled for one io thread and rebuilt on every
 * sequence deployment (open sessions pick the new ones up with their next message):
 * - inbound (client -> backend): `dispatchSeq`;
 * - outbound (backend -> client): `outDispatchSeq`, then the sender's outflow dispatch sequence
 *   ([transport.ws(s)] sender.parameters.ws.outflow.dispatch.sequence) when one of that name is deployed;
 * - a dispatch sequence that fails runs the sender's fault sequence (...dispatch.fault.sequence) when deployed.
 * Pass-through sequences (no mediator, as shipped) are left out, so a plain relay never builds a message.
 */
export class WsDispatch {
  readonly inbound: CompiledSequence | null;
  readonly outbound: { readonly ws: readonly CompiledSequence[]; readonly wss: readonly CompiledSequence[] };
  private readonly faults: { readonly ws: CompiledSequence | null; readonly wss: CompiledSequence | null };
  private readonly result: DispatchResult = { action: DispatchAction.PASS, body: EMPTY, binary: false, faultBody: null, faultBinary: false, error: '' };

  constructor(readonly registry: SequenceRegistry, set: SequenceSet, ws: DispatchNames, wss: DispatchNames) {
    const active = (name: string): CompiledSequence | null => (isPassThrough(set, name) ? null : registry.get(name) ?? null);
    this.inbound = active(FaultSequence.WS_DISPATCH);
    const out = active(FaultSequence.WS_OUT_DISPATCH);
    const chain = (n: DispatchNames): CompiledSequence[] => {
      const list: CompiledSequence[] = [];
      if (out !== null) list.push(out);
      const flow = n.outflowSequence !== FaultSequence.WS_OUT_DISPATCH ? active(n.outflowSequence) : null;
      if (flow !== null) list.push(flow);
      return list;
    };
    this.outbound = { ws: chain(ws), wss: chain(wss) };
    this.faults = { ws: registry.get(ws.faultSequence) ?? null, wss: registry.get(wss.faultSequence) ?? null };
  }

  /** Any sequence to run for a session of this scheme? */
  active(secure: boolean): boolean {
    return this.inbound !== null || (secure ? this.outbound.wss : this.outbound.ws).length > 0;
  }

  /**
   * Runs `sequences` on a message (synchronously; `data` is not kept). The result object is reused by the
   * next call.
   */
  run(sequences: readonly CompiledSequence[] | CompiledSequence, inbound: boolean, secure: boolean, facts: CallFacts, data: Buffer, isBinary: boolean): DispatchResult {
    const r = this.result;
    r.faultBody = null;
    r.error = '';
    const m = new MediationMessage(inbound ? 'request' : 'response', facts, { body: data, contentType: contentTypeOf(data, isBinary) }, this.registry.codecs);
    let outcome: Outcome = Outcome.CONTINUE;
    try {
      if (typeof sequences === 'function') outcome = sequences(m);
      else for (let i = 0; i < sequences.length && outcome === Outcome.CONTINUE; i++) outcome = sequences[i]!(m);
    } catch (err) {
      r.action = DispatchAction.DROP;
      r.error = err instanceof MediationRuntimeError ? err.message : String(err);
      this.fault(secure, facts, err, r);
      return r;
    }
    if (outcome === Outcome.DROP) { r.action = DispatchAction.DROP; return r; }
    const body = m.body ?? EMPTY;
    r.body = body;
    r.binary = body === data ? isBinary : !TEXTUAL.test(m.contentType ?? '');
    if (inbound && outcome === Outcome.RESPOND) r.action = DispatchAction.RESPOND;
    else r.action = body === data ? DispatchAction.PASS : DispatchAction.REPLACE;
    return r;
  }

  /** A dispatch sequence failed: the message is dropped; the fault sequence may build one for the client. */
  private fault(secure: boolean, facts: CallFacts, err: unknown, r: DispatchResult): void {
    const seq = secure ? this.faults.wss : this.faults.ws;
    if (seq === null) return;
    const e = err instanceof MediationRuntimeError ? err : null;
    const m = new MediationMessage('fault', facts, {
      properties: [
        ['ERROR_CODE', GatewayError.WS_DISPATCH_FAILED.code],
        ['ERROR_MESSAGE', GatewayError.WS_DISPATCH_FAILED.message],
        ['ERROR_DETAIL', e ? e.reason : String(err)],
        ['ERROR_EXCEPTION', e ? e.name : 'Error'],
      ],
    }, this.registry.codecs);
    try {
      const o = seq(m);
      if (o !== Outcome.DROP && m.body !== null && m.body.length > 0) {
        r.faultBody = m.body;
        r.faultBinary = !TEXTUAL.test(m.contentType ?? '');
      }
    } catch { /* a failing fault sequence leaves the message dropped */ }
  }
}
