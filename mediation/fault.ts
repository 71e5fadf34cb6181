/**
 * Rendering a fault for the client: the synchronous entry point the gateway calls for every fault it raises
 * (authentication, throttling, resource mismatch, transport errors ...). It runs the fault sequence the
 * seed names for the code and always returns a response: if the sequence is missing, fails or sends nothing,
 * `fault` is tried, then a built-in JSON fault body.
 */
import { FaultSequence } from '../errors/fault-sequences.js';
import { errorByCode } from '../errors/catalogue.js';
import { MediationMessage, isTrue, type CallFacts, type MediatedResponse, type PropertyValue } from './message.js';
import { Outcome } from './outcome.js';
import type { SequenceRegistry } from './registry.js';

export interface Fault {
  /** ERROR_CODE: an API handler code (900901), a transport code (101504), or a generic one (400). */
  readonly code: number;
  /** ERROR_MESSAGE; default: the handler table's message for the code. */
  readonly message?: string;
  /** ERROR_DETAIL (the body's `description`); default: the handler table's description. */
  readonly description?: string;
  /** The status the caller suggests (HTTP_SC before the sequence runs); default: the table's, else 500. */
  readonly status?: number;
  /** The fault sequence to run; default: the table's for the code, else `fault`. */
  readonly sequence?: string;
  /** ERROR_EXCEPTION: the cause's class or code, when there is one. */
  readonly exception?: string;
  /** Response headers the gateway adds before the sequence runs (WWW-Authenticate, Retry-After). */
  readonly headers?: readonly (readonly [string, string])[];
  /** More default-scope properties for the sequence to read. */
  readonly properties?: Readonly<Record<string, PropertyValue>>;
}

export interface FaultResponse extends MediatedResponse {
  /** The sequence whose output this is, or `builtin` for the built-in body. */
  readonly renderedBy: string;
}

/** The default JSON fault body of seed 000, built without any sequence. */
export function builtinFaultBody(code: number, message: string, description: string): Buffer {
  return Buffer.from(JSON.stringify({ fault: { code, type: 'Status report', message, description } }), 'utf8');
}

/**
 * Renders `fault` through its fault sequence. Never throws; never awaits. Request headers are never part of
 * the result: the message starts with only `fault.headers`.
 */
export function renderFault(registry: SequenceRegistry, fault: Fault, facts: CallFacts = {}): FaultResponse {
  const known = errorByCode(fault.code);
  const message = fault.message ?? known?.message ?? 'Internal Server Error';
  const description = fault.description ?? known?.description ?? message;
  const status = fault.status ?? known?.status ?? 500;
  const first = fault.sequence ?? known?.sequence ?? FaultSequence.FAULT;
  const candidates = first === FaultSequence.FAULT ? [first] : [first, FaultSequence.FAULT];
  const log = registry.logger;

  for (const name of candidates) {
    const seq = registry.get(name);
    if (!seq) {
      log?.warn({ component: 'mediation', sequence: name, code: fault.code }, `fault sequence ${name} is not deployed; trying the next one`);
      continue;
    }
    const m = new MediationMessage('fault', facts, {
      headers: fault.headers,
      properties: faultProperties(fault, message, description),
      axis2: [['HTTP_SC', status]],
    }, registry.codecs);
    try {
      const outcome = seq(m);
      if (outcome === Outcome.DROP) {
        log?.warn({ component: 'mediation', sequence: name, code: fault.code }, `fault sequence ${name} dropped the fault without sending a response; sending the default fault body`);
        return builtin(m.status(status), fault.code, message, description, m.toResponse(status).headers);
      }
      const res = m.toResponse(status);
      if (res.body === null && !isTrue(m.axis2.get('NO_ENTITY_BODY'))) {
        log?.warn({ component: 'mediation', sequence: name, code: fault.code }, `fault sequence ${name} built no body; sending the default fault body`);
        return builtin(res.status, fault.code, message, description, res.headers);
      }
      return { ...res, renderedBy: name };
    } catch (err) {
      log?.error({ component: 'mediation', sequence: name, code: fault.code, err: (err as Error).message }, `fault sequence ${name} failed; trying the next one`);
    }
  }
  return builtin(status, fault.code, message, description, fault.headers ?? []);
}

function faultProperties(fault: Fault, message: string, description: string): [string, PropertyValue][] {
  const props: [string, PropertyValue][] = [];
  if (fault.properties) for (const [k, v] of Object.entries(fault.properties)) props.push([k, v]);
  props.push(['ERROR_CODE', fault.code], ['ERROR_MESSAGE', message], ['ERROR_DETAIL', description]);
  if (fault.exception !== undefined) props.push(['ERROR_EXCEPTION', fault.exception]);
  return props;
}

function builtin(status: number, code: number, message: string, description: string,
  headers: readonly (readonly [string, string])[]): FaultResponse {
  const out: [string, string][] = [];
  for (const [k, v] of headers) {
    const lower = k.toLowerCase();
    if (lower !== 'content-type' && lower !== 'content-length' && lower !== 'transfer-encoding') out.push([k, v]);
  }
  out.push(['Content-Type', 'application/json']);
  return { status, headers: out, body: builtinFaultBody(code, message, description), renderedBy: 'builtin' };
}

/**
 * A CORS preflight reply: `_cors_request_handler_` over a message holding the CORS headers the gateway
 * computed. The reply has no body unless the operator's sequence builds one.
 */
export function renderPreflight(registry: SequenceRegistry, facts: CallFacts,
  corsHeaders: readonly (readonly [string, string])[], status = 200): MediatedResponse {
  const m = new MediationMessage('response', { ...facts, method: facts.method ?? 'OPTIONS' }, {
    headers: corsHeaders,
    axis2: [['HTTP_SC', status]],
  }, registry.codecs);
  const seq = registry.get(FaultSequence.CORS_REQUEST);
  if (seq) {
    try {
      seq(m);
    } catch (err) {
      registry.logger?.error({ component: 'mediation', sequence: FaultSequence.CORS_REQUEST, err: (err as Error).message }, 'CORS preflight sequence failed; replying without a body');
      return { status, headers: corsHeaders, body: null };
    }
  }
  return m.toResponse(status);
}
