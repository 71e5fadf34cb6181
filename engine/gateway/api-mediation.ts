import type { Logger } from 'pino';
import { fieldProblem, firstUnsafePair } from '../../transport/field-values.js';
import {
  MediationMessage, MediationRuntimeError, UnsafeHeaderError, Outcome, builtinSequenceAsts, touchesBody, type CallFacts, type Codecs, type CompiledSequence,
  type MediatedResponse, type SequenceAst, type SequenceRegistry, type SequenceSet,
} from '../../mediation/index.js';

/** What an in/out sequence made of the message. */
export type FlowResult =
  | { readonly kind: 'continue'; readonly headers: [string, string][]; readonly body: Buffer | null; readonly status: number }
  | { readonly kind: 'respond'; readonly status: number; readonly headers: readonly (readonly [string, string])[]; readonly body: Buffer | null }
  | { readonly kind: 'drop' }
  /** `unsafeHeader`: the sequence tried to set a header a head may not carry (a control, CR, LF...). */
  | { readonly kind: 'error'; readonly message: string; readonly unsafeHeader: boolean };

export interface ApiMediationSettings {
  /**
   * [mediation] respond_reflects_request_headers: `<respond/>` in a request flow answers with every request
   * header, as the reference does. Off by default: it answers with the headers the sequence set only.
   */
  readonly respondReflectsRequestHeaders: boolean;
}

/**
 * The in and out sequences APIs name (in_sequence / out_sequence in their files), run on the io thread
 * inside the worker-pool slot of the call. Knows, per deployed sequence, whether it reads or replaces the
 * body: only then is that message's body held whole; otherwise it keeps streaming.
 */
export class ApiMediation {
  private asts = new Map<string, SequenceAst>();
  private readonly bodyUse = new Map<string, boolean>();

  constructor(private readonly registry: () => SequenceRegistry, private readonly codecs: Codecs, private readonly log: Logger,
    private readonly settings: ApiMediationSettings = { respondReflectsRequestHeaders: false }) {}

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
    let res: MediatedResponse;
    try {
      outcome = seq(m);
      if (outcome === Outcome.DROP) return { kind: 'drop' };
      // Answering the client from a request flow: the request's own headers (Authorization, Cookie) stay behind.
      const answer = outcome === Outcome.RESPOND && direction === 'request';
      res = m.toResponse(status, answer && !this.settings.respondReflectsRequestHeaders);
      // Values a sequence set are UTF-8 bytes by now (HeaderMap.headEntries): checked once more before a head.
      const bad = answer ? firstUnsafePair(res.headers) : -1;
      if (bad >= 0) throw new UnsafeHeaderError(res.headers[bad]![0], `<respond/>: ${fieldProblem(res.headers[bad]![0], res.headers[bad]![1])}`);
    } catch (err) {
      const unsafeHeader = err instanceof UnsafeHeaderError || (err instanceof MediationRuntimeError && err.unsafeHeader);
      if (unsafeHeader) this.log.warn({ err: (err as Error).message, direction, api: facts.apiName }, 'mediation sequence refused a header value');
      else this.log.error({ err: (err as Error).message, direction }, 'mediation sequence failed');
      return { kind: 'error', message: (err as Error).message, unsafeHeader };
    }
    if (outcome === Outcome.RESPOND) return { kind: 'respond', status: res.status, headers: res.headers, body: res.body };
    // CONTINUE / SEND: the message goes on with what the sequence made of it.
    const out: [string, string][] = [];
    for (const [k, v] of m.headers.headEntries()) out.push([k, v]);
    if (body !== null) {
      for (let i = out.length - 1; i >= 0; i--) if (out[i]![0].toLowerCase() === 'content-type') out.splice(i, 1);
      for (const [k, v] of res.headers) if (k.toLowerCase() === 'content-type') out.push(['content-type', v]);
    }
    return { kind: 'continue', headers: out, body: body === null ? null : res.body ?? Buffer.alloc(0), status: res.status };
  }
}
