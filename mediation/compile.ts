/**
 * Per io thread: SequenceAst -> CompiledSequence, a synchronous closure over a MediationMessage. Everything
 * that can be prepared is prepared here (regexes, expression accessors, payloadFactory formats split into
 * parts, lower-cased header names, converted literal values), so a call never parses or allocates a regex.
 */
import type { Logger } from 'pino';
import type {
  FilterAst, HeaderAst, LogAst, MakefaultAst, MediatorAst, PayloadArgAst, PayloadFactoryAst, PropertyAst,
  PropertyType, SequenceAst, SwitchAst, ValueSource,
} from './ast.js';
import { MediationRuntimeError, UnsafeHeaderError } from './errors.js';
import { compileBool, compileString, type StringFn } from './expression-compile.js';
import { wholeMatchRegex } from './expression-parse.js';
import { isTrue, type MediationMessage, type PropertyValue } from './message.js';
import { Outcome } from './outcome.js';
import { escapeXml, jsonToXmlFragment, looksLikeXml, parseXmlBody } from './xml-model.js';
import { escapeLogText, readsMaskedHeader } from './log-text.js';
import { badValueCharAt, fieldProblem } from '../transport/field-values.js';
import { MASK, SENSITIVE_HEADERS, loggablePath } from '../transport/sensitive-fields.js';

export type CompiledSequence = (m: MediationMessage) => Outcome;

/** Finds another compiled sequence by name (`sequence key`, `onError`); called on first use, then cached. */
export type SequenceResolver = (name: string) => CompiledSequence | undefined;

export interface CompileOptions {
  /** Where the log mediator writes (never the console). Silent when absent. */
  readonly logger?: Logger;
  /**
   * Header names whose values the log mediator masks, besides transport/sensitive-fields.ts's list (the
   * configured auth header, `[apim.oauth_config] auth_header`).
   */
  readonly maskedHeaders?: readonly string[];
}

type Step = (m: MediationMessage) => Outcome;

const C = Outcome.CONTINUE;

export function compileSequence(ast: SequenceAst, resolver: SequenceResolver, options: CompileOptions = {}): CompiledSequence {
  const ctx = new Compiler(ast, resolver, options.logger, maskedSet(options.maskedHeaders));
  const body = ctx.list(ast.body);
  if (!ast.onError) return body;
  const handler = ctx.reference(ast.onError, ast.line);
  return (m) => {
    try {
      return body(m);
    } catch (err) {
      const e = err instanceof MediationRuntimeError ? err : new MediationRuntimeError(ast.name, ast.line, 'sequence', String(err));
      if (!m.properties.has('ERROR_CODE')) m.properties.set('ERROR_CODE', 0);
      m.properties.set('ERROR_MESSAGE', e.reason);
      m.properties.set('ERROR_DETAIL', e.message);
      m.properties.set('ERROR_EXCEPTION', e.name);
      return handler(m);
    }
  };
}

class Compiler {
  constructor(
    private readonly ast: SequenceAst,
    private readonly resolver: SequenceResolver,
    private readonly logger: Logger | undefined,
    /** Lower-case header names the log mediator masks. */
    private readonly masked: ReadonlySet<string>,
  ) {}

  private fail(line: number, element: string, reason: string, cause?: unknown): MediationRuntimeError {
    return new MediationRuntimeError(this.ast.name, line, element, reason, cause);
  }

  /** A list of mediators run in order until one does not CONTINUE. Failures are located by line. */
  list(mediators: readonly MediatorAst[]): Step {
    const steps = mediators.map((m) => this.mediator(m));
    const lines = mediators.map((m) => m.line);
    const kinds = mediators.map((m) => m.kind);
    const n = steps.length;
    if (n === 0) return () => C;
    return (m) => {
      let i = 0;
      try {
        for (; i < n; i++) {
          const r = steps[i]!(m);
          if (r !== C) return r;
        }
        return C;
      } catch (err) {
        if (err instanceof MediationRuntimeError) throw err;
        throw this.fail(lines[i]!, kinds[i]!, err instanceof Error ? err.message : String(err), err);
      }
    };
  }

  reference(key: string, line: number): CompiledSequence {
    let target: CompiledSequence | undefined;
    return (m) => {
      target ??= this.resolver(key);
      if (!target) throw this.fail(line, 'sequence', `sequence "${key}" is not deployed`);
      return target(m);
    };
  }

  private mediator(a: MediatorAst): Step {
    switch (a.kind) {
      case 'property': return this.property(a);
      case 'payloadFactory': return this.payloadFactory(a);
      case 'header': return this.header(a);
      case 'log': return this.log(a);
      case 'filter': return this.filter(a);
      case 'switch': return this.switchMediator(a);
      case 'sequence': return this.reference(a.key, a.line);
      case 'respond': return () => Outcome.RESPOND;
      case 'loopback': return () => Outcome.RESPOND;
      case 'drop': return () => Outcome.DROP;
      case 'send':
        // In a request flow, RESPONSE=true turns the message around (the reference's `property RESPONSE` + send).
        return (m) => (m.direction === 'request' && isTrue(m.properties.get('RESPONSE')) ? Outcome.RESPOND : Outcome.SEND);
      case 'makefault': return this.makefault(a);
      case 'in': { const body = this.list(a.body); return (m) => (m.direction !== 'response' ? body(m) : C); }
      case 'out': { const body = this.list(a.body); return (m) => (m.direction === 'response' ? body(m) : C); }
    }
  }

  // ---- property ----

  private converter(type: PropertyType, line: number): (s: string) => PropertyValue {
    switch (type) {
      case 'STRING': return (s) => s;
      case 'BOOLEAN': return (s) => s.trim().toLowerCase() === 'true';
      case 'DOUBLE': case 'FLOAT': return (s) => {
        const t = s.trim();
        const n = Number(t);
        if (t === '' || !Number.isFinite(n)) throw this.fail(line, 'property', `"${s}" is not a number (type ${type})`);
        return n;
      };
      default: return (s) => {
        const t = s.trim();
        if (!INTEGER.test(t)) throw this.fail(line, 'property', `"${s}" is not an integer (type ${type})`);
        return Number(t);
      };
    }
  }

  private property(a: PropertyAst): Step {
    const name = a.name;
    const lower = name.toLowerCase();
    if (a.action === 'remove') {
      if (a.scope === 'transport') return (m) => { m.headers.deleteLower(lower); return C; };
      if (a.scope === 'axis2') {
        if (name === 'TRANSPORT_HEADERS') return (m) => { m.headers.clear(); return C; };
        return (m) => { m.axis2.delete(name); return C; };
      }
      return (m) => { m.properties.delete(name); return C; };
    }
    const convert = this.converter(a.type, a.line);
    // messageType and ContentType become the response's Content-Type: checked like any header value.
    const typeHeader = a.scope === 'axis2' && (name === 'messageType' || name === 'ContentType');
    const put: (m: MediationMessage, v: PropertyValue) => void =
      a.scope === 'transport' ? (m, v) => m.headers.setLower(lower, name, typeof v === 'string' ? v : String(v))
        : typeHeader ? (m, v) => { checkTypeValue(String(v)); m.axis2.set(name, v); }
          : a.scope === 'axis2' ? (m, v) => { m.axis2.set(name, v); }
            : (m, v) => { m.properties.set(name, v); };
    const drop: (m: MediationMessage) => void =
      a.scope === 'transport' ? (m) => { m.headers.deleteLower(lower); }
        : a.scope === 'axis2' ? (m) => { m.axis2.delete(name); }
          : (m) => { m.properties.delete(name); };
    if (a.value !== undefined) {
      const v = convert(a.value);
      return (m) => { put(m, v); return C; };
    }
    const get = compileString(a.expr!);
    // An expression without a value leaves the property unset (the reference stores null).
    return (m) => {
      const s = get(m);
      if (s === undefined) drop(m); else put(m, convert(s));
      return C;
    };
  }

  // ---- header ----

  private header(a: HeaderAst): Step {
    if (!a.effective) return () => C;
    const name = a.name;
    const lower = name.toLowerCase();
    if (a.action === 'remove') return (m) => { m.headers.deleteLower(lower); return C; };
    if (a.value !== undefined) { const v = a.value; return (m) => { m.headers.setLower(lower, name, v); return C; }; }
    const get = compileString(a.expr!);
    return (m) => {
      const v = get(m);
      if (v === undefined) m.headers.deleteLower(lower); else m.headers.setLower(lower, name, v);
      return C;
    };
  }

  // ---- payloadFactory ----

  private payloadFactory(a: PayloadFactoryAst): Step {
    const render = a.args.map((arg) => this.payloadArg(a.mediaType, arg));
    const parts = a.parts.slice();
    const slots = a.slots.slice();
    const n = slots.length;
    const nArgs = render.length;
    const build = (m: MediationMessage): string => {
      const vals: string[] = new Array<string>(nArgs);
      for (let i = 0; i < nArgs; i++) vals[i] = render[i]!(m);
      let out = parts[0]!;
      for (let i = 0; i < n; i++) out += vals[slots[i]!]! + parts[i + 1]!;
      return out.trim();
    };
    const line = a.line;
    if (a.mediaType === 'json') {
      return (m) => {
        const out = build(m);
        let value: unknown;
        try {
          value = JSON.parse(out);
        } catch (err) {
          throw this.fail(line, 'payloadFactory', `the JSON payload built is not valid JSON (${(err as Error).message}): ${out.slice(0, 200)}`);
        }
        setPayloadType(m, 'application/json', true);
        m.setBody(Buffer.from(out, 'utf8'), 'application/json', { kind: 'json', value });
        return C;
      };
    }
    if (a.mediaType === 'text') {
      return (m) => {
        const out = build(m);
        setPayloadType(m, 'text/plain', true);
        m.setBody(Buffer.from(out, 'utf8'), 'text/plain', { kind: 'text', value: out });
        return C;
      };
    }
    const envelopeType = a.soapEnvelope === '11' ? 'text/xml' : a.soapEnvelope === '12' ? 'application/soap+xml' : null;
    return (m) => {
      const out = build(m);
      const type = envelopeType ?? 'application/xml';
      const current = m.axis2.get('messageType');
      // The reference keeps an xml-family messageType the flow already chose (text/xml, soap+xml).
      const keep = current === 'application/xml' || current === 'text/xml' || current === 'application/soap+xml';
      if (envelopeType || !keep) setPayloadType(m, type, true);
      else setPayloadType(m, String(current), false);
      m.setBody(Buffer.from(out, 'utf8'), type, null);
      return C;
    };
  }

  /** One argument rendered for insertion into the format, escaped for the media type. */
  private payloadArg(mediaType: 'json' | 'xml' | 'text', arg: PayloadArgAst): (m: MediationMessage) => string {
    if (arg.value !== undefined) {
      const v = arg.value;
      const t = v.trim();
      const fixed = mediaType === 'json' ? (t.startsWith('{') || t.startsWith('[') ? v : escapeJson(v))
        : mediaType === 'xml' ? (looksLikeXml(v) ? v : escapeXml(v)) : v;
      return () => fixed;
    }
    const get = compileString(arg.expr!);
    if (mediaType === 'text') return (m) => get(m) ?? '';
    const literal = arg.literal;
    const jsonArg = arg.json;
    if (mediaType === 'json') {
      return (m) => {
        const s = get(m) ?? '';
        if (!literal) {
          const t = s.trim();
          const c = t.charCodeAt(0);
          if (c === 123 /* { */ || c === 91 /* [ */) return s; // JSON inserted as JSON
          if (!jsonArg && c === 60 /* < */ && looksLikeXml(t)) {
            // An XML value becomes JSON, inserted as JSON (the reference wraps it in <jsonObject>).
            return JSON.stringify(m.codecs.xmlToJson({ name: 'jsonObject', attrs: {}, children: [parseXmlBody(t)] }));
          }
        }
        const escaped = escapeJson(s);
        return isTrue(m.properties.get('QUOTE_STRING_IN_PAYLOAD_FACTORY_JSON')) && !JSON_SCALAR.test(s.trim()) ? `"${escaped}"` : escaped;
      };
    }
    return (m) => {
      const s = get(m) ?? '';
      if (!literal) {
        const t = s.trim();
        const c = t.charCodeAt(0);
        if (jsonArg && (c === 123 || c === 91)) {
          try { return jsonToXmlFragment(JSON.parse(t)); } catch { /* not JSON after all: a string */ }
        }
        if (c === 60 && looksLikeXml(t)) return t;
      }
      return escapeXml(s);
    };
  }

  // ---- log ----

  /**
   * Every value written is escaped (escapeLogText: no forged line, no terminal escape); the values of
   * credential headers (transport/sensitive-fields.ts, plus CompileOptions.maskedHeaders) are masked at every
   * level: as headers, and as properties named like one or whose expression reads one.
   */
  private log(a: LogAst): Step {
    const logger = this.logger;
    if (!logger) return () => C;
    const level = a.category.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
    const masked = this.masked;
    const props = a.properties.map((p) => ({
      label: `${escapeLogText(p.name)} = `,
      get: valueGetter(p),
      secret: masked.has(p.name.toLowerCase()) || (p.expr !== undefined && readsMaskedHeader(p.expr, masked)),
    }));
    const sep = a.separator;
    const sequence = this.ast.name;
    const detail = a.level;
    return (m) => {
      if (!logger.isLevelEnabled(level)) return C;
      const parts: string[] = [];
      if (detail !== 'custom') {
        const f = m.facts;
        parts.push(`Direction: ${m.direction}`);
        if (f.method !== undefined) parts.push(`Method: ${escapeLogText(f.method)}`);
        if (f.path !== undefined) parts.push(`To: ${escapeLogText(loggableTarget(f.path))}`);
        parts.push(`MessageID: ${escapeLogText(m.messageId)}`);
        if (f.apiName !== undefined) parts.push(`API: ${escapeLogText(`${f.apiName}:${f.apiVersion ?? ''}`)}`);
      }
      if (detail === 'headers' || detail === 'full') {
        for (const [k, v] of m.headers.entries()) parts.push(`${escapeLogText(k)}: ${masked.has(k.toLowerCase()) ? MASK : escapeLogText(v)}`);
      }
      for (const p of props) {
        const v = p.get(m);
        parts.push(p.label + (v === undefined ? 'null' : p.secret ? MASK : escapeLogText(v)));
      }
      if (detail === 'full' && m.body) {
        const text = m.body.subarray(0, 4096).toString('utf8');
        parts.push(`Payload: ${escapeLogText(text)}${m.body.length > 4096 ? '...' : ''}`);
      }
      logger[level]({ component: 'mediation', sequence }, parts.join(sep));
      return C;
    };
  }

  // ---- filter, switch ----

  private filter(a: FilterAst): Step {
    const thenStep = this.list(a.then);
    const elseStep = this.list(a.else);
    if (a.condition) {
      const cond = compileBool(a.condition);
      return (m) => (cond(m) ? thenStep(m) : elseStep(m));
    }
    const source = compileString(a.source!);
    const re = wholeMatchRegex(a.regex!);
    return (m) => (re.test(source(m) ?? '') ? thenStep(m) : elseStep(m));
  }

  private switchMediator(a: SwitchAst): Step {
    const source = compileString(a.source);
    const cases = a.cases.map((c) => ({ re: wholeMatchRegex(c.regex), body: this.list(c.body) }));
    const def = this.list(a.default);
    return (m) => {
      const s = source(m) ?? '';
      for (let i = 0; i < cases.length; i++) if (cases[i]!.re.test(s)) return cases[i]!.body(m);
      return def(m);
    };
  }

  // ---- makefault ----

  private makefault(a: MakefaultAst): Step {
    const reason = valueGetter(a.reason);
    const detail = a.detail ? (a.detail.xml !== undefined ? (() => { const x = a.detail!.xml!; return () => x; })() : escaped(valueGetter(a.detail))) : null;
    const colon = a.code.indexOf(':');
    const code = escapeXml(colon >= 0 ? a.code.slice(colon + 1) : a.code);
    let render: (r: string, d: string | null) => string;
    let type: string;
    if (a.version === 'soap11') {
      type = 'text/xml';
      render = (r, d) => `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault>`
        + `<faultcode>soapenv:${code}</faultcode><faultstring>${r}</faultstring>${d !== null ? `<detail>${d}</detail>` : ''}`
        + '</soapenv:Fault></soapenv:Body></soapenv:Envelope>';
    } else if (a.version === 'soap12') {
      type = 'application/soap+xml';
      render = (r, d) => `<soapenv:Envelope xmlns:soapenv="http://www.w3.org/2003/05/soap-envelope"><soapenv:Body><soapenv:Fault>`
        + `<soapenv:Code><soapenv:Value>soapenv:${code}</soapenv:Value></soapenv:Code>`
        + `<soapenv:Reason><soapenv:Text xml:lang="en">${r}</soapenv:Text></soapenv:Reason>`
        + `${d !== null ? `<soapenv:Detail>${d}</soapenv:Detail>` : ''}</soapenv:Fault></soapenv:Body></soapenv:Envelope>`;
    } else {
      type = 'application/xml';
      render = (r, d) => `<Exception>${r}${d !== null ? `<detail>${d}</detail>` : ''}</Exception>`;
    }
    return (m) => {
      const out = render(escapeXml(reason(m) ?? ''), detail ? detail(m) : null);
      setPayloadType(m, type, true);
      if (!m.axis2.has('HTTP_SC')) m.axis2.set('HTTP_SC', 500);
      m.setBody(Buffer.from(out, 'utf8'), type, null);
      return C;
    };
  }
}

const DEFAULT_MASKED: ReadonlySet<string> = new Set(SENSITIVE_HEADERS);

function maskedSet(extra: readonly string[] | undefined): ReadonlySet<string> {
  return extra === undefined || extra.length === 0 ? DEFAULT_MASKED : new Set([...SENSITIVE_HEADERS, ...extra.map((h) => h.toLowerCase())]);
}

/** The call's path with its query's credentials masked (`?apikey=********`). */
function loggableTarget(pathWithQuery: string): string {
  const q = pathWithQuery.indexOf('?');
  return q < 0 ? pathWithQuery : loggablePath(pathWithQuery.slice(0, q), pathWithQuery.slice(q + 1));
}

/** messageType / ContentType become the response's Content-Type header: the same rules as any header value. */
function checkTypeValue(v: string): void {
  if (badValueCharAt(v) >= 0) throw new UnsafeHeaderError('Content-Type', fieldProblem('Content-Type', v));
}

/** After a payload is built: messageType and ContentType follow it (the reference's setContentType). */
function setPayloadType(m: MediationMessage, type: string, setMessageType: boolean): void {
  if (setMessageType) m.axis2.set('messageType', type);
  m.axis2.set('ContentType', type);
  m.headers.setLower('content-type', 'Content-Type', type);
  m.axis2.delete('NO_ENTITY_BODY');
}

function valueGetter(src: ValueSource): StringFn {
  if (src.value !== undefined) { const v = src.value; return () => v; }
  return compileString(src.expr!);
}

function escaped(get: StringFn): (m: MediationMessage) => string {
  return (m) => escapeXml(get(m) ?? '');
}

// Module-level regexes: a literal inside a function allocates a RegExp each time it is evaluated.
const INTEGER = /^[+-]?\d+$/;
// eslint-disable-next-line no-control-regex
const JSON_SPECIAL = /["\\\u0000-\u001f]/;
// eslint-disable-next-line no-control-regex
const JSON_SPECIAL_ALL = /["\\\u0000-\u001f]/g;
const JSON_SCALAR = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)$/;
const JSON_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A string made safe inside a JSON string literal: backslash, quote, \b \f \n \r \t as the reference escapes
 * them, and the other control characters as \u00XX (the reference leaves those, giving invalid JSON).
 */
export function escapeJson(s: string): string {
  if (!JSON_SPECIAL.test(s)) return s;
  return s.replace(JSON_SPECIAL_ALL, (c) => JSON_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
