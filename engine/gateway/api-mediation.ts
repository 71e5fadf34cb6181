import type { Logger } from 'pino';
import {
  MediationMessage, Outcome, builtinSequenceAsts, touchesBody, type CallFacts, type Codecs, type CompiledSequence,
  type SequenceAst, type SequenceRegistry, type SequenceSet,
} from '../../mediation/index.js';

/** What an in/out sequence made of the message. */
export type FlowResult =
  | { readonly kind: 'continue'; readonly headers: [string, string][]; readonly body: Buffer | null; readonly status: number }
  | { readonly kind: 'respond'; readonly status: number; readonly headers: readonly (readonly [string, string])[]; readonly body: Buffer | null }
  | { readonly kind: 'drop' }
  | { readonly kind: 'error'; readonly message: string };

/**
 * The in and out sequences APIs name (in_sequence / out_sequence in their files), run on the io thread
 * inside the worker-pool slot of the call. Knows, per deployed sequence, whether it reads or replaces the
 * body: only then is that message's body held whole; otherwise it keeps streaming.
 */
export class ApiMediation {
  private asts = new Map<string, SequenceAst>();
  private readonly bodyUse = new Map<string, boolean>();

  constructor(private readonly registry: () => SequenceRegistry, private readonly codecs: Codecs, private readonly log: Logger) {}

  deploy(set: SequenceSet): void {
    const asts = new Map<string, SequenceAst>(builtinSequenceAsts());
    for (const a of set.sequences) asts.set(a.name, a);
    this.asts = asts;
    this.bodyUse.clear();
  }

  get(name: string): CompiledSequence | undefined {
    return this.registry().get(name);
  }

  /** The sequence reads or rewrites the body (content-aware). */
  touchesBody(name: string): boolean {
    let v = this.bodyUse.get(name);
    if (v === undefined) { v = touchesBody(name, this.asts); this.bodyUse.set(name, v); }
    return v;
  }

  /**
   * Runs a sequence over a message (request or response): headers flat [name, value...], the body when the
   * sequence is content-aware (null otherwise), the status for responses.
   */
  run(seq: CompiledSequence, direction: 'request' | 'response', facts: CallFacts, headers: readonly string[], body: Buffer | null, status: number): FlowResult {
    const pairs: [string, string][] = [];
    for (let i = 0; i < headers.length; i += 2) pairs.push([headers[i]!, headers[i + 1]!]);
    let contentType: string | null = null;
    for (const [k, v] of pairs) if (k.toLowerCase() === 'content-type') contentType = v;
    const m = new MediationMessage(direction, facts, {
      headers: pairs,
      body,
      contentType,
      ...(direction === 'response' ? { axis2: [['HTTP_SC', status]] as [string, number][] } : {}),
    }, this.codecs);
    let outcome: Outcome;
    try {
      outcome = seq(m);
    } catch (err) {
      this.log.error({ err: (err as Error).message, direction }, 'mediation sequence failed');
      return { kind: 'error', message: (err as Error).message };
    }
    if (outcome === Outcome.DROP) return { kind: 'drop' };
    const res = m.toResponse(status);
    if (outcome === Outcome.RESPOND) return { kind: 'respond', status: res.status, headers: res.headers, body: res.body };
    // CONTINUE / SEND: the message goes on with what the sequence made of it.
    const out: [string, string][] = [];
    for (const [k, v] of m.headers.entries()) out.push([k, v]);
    if (body !== null) {
      for (let i = out.length - 1; i >= 0; i--) if (out[i]![0].toLowerCase() === 'content-type') out.splice(i, 1);
      for (const [k, v] of res.headers) if (k.toLowerCase() === 'content-type') out.push(['content-type', v]);
    }
    return { kind: 'continue', headers: out, body: body === null ? null : res.body ?? Buffer.alloc(0), status: res.status };
  }
}
