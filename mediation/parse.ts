/**
 * Deploy time, main thread: sequence XML text -> SequenceAst. The XML is read here once; nothing downstream
 * (compile, run) sees XML again. Every problem is a SequenceDeployError with file, line and element.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { badValueCharAt, fieldProblem, isFieldName } from '../transport/field-values.js';
import type {
  ExprAst, FilterAst, FlowAst, HeaderAst, LogAst, LogPropertyAst, MakefaultAst, MediatorAst, PayloadArgAst,
  PayloadFactoryAst, PropertyAst, PropertyScope, PropertyType, SequenceAst, SwitchAst, SwitchCaseAst, ValueSource,
} from './ast.js';
import { SequenceDeployError } from './errors.js';
import { ExpressionError, parseExpression, parseJsonPath, wholeMatchRegex } from './expression-parse.js';

/** One element of the source, with its location and (for raw XML payloads) its inner source text. */
interface Element {
  readonly name: string;
  /** The name without a namespace prefix. */
  readonly local: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly Element[];
  /** Text and CDATA directly inside, entity-decoded, concatenated. */
  readonly text: string;
  readonly line: number;
  readonly column: number;
  /** The source between the opening and the closing tag ('' when self-closing). */
  readonly inner: string;
}

const META = XMLParser.getMetaDataSymbol() as unknown as symbol;
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: '#cdata',
  commentPropName: false,
  captureMetaData: true,
  processEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** WS-Addressing headers of the reference's default `header` scope: accepted, no effect in Sluice. */
const ADDRESSING_HEADERS = new Set(['to', 'from', 'action', 'faultto', 'replyto', 'relatesto', 'messageid']);
const PROPERTY_TYPES: readonly PropertyType[] = ['STRING', 'INTEGER', 'LONG', 'SHORT', 'DOUBLE', 'FLOAT', 'BOOLEAN'];
const LOG_LEVELS = ['simple', 'custom', 'headers', 'full'] as const;
const LOG_CATEGORIES = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
const SCOPES: Record<string, PropertyScope> = { default: 'default', axis2: 'axis2', transport: 'transport' };
const UNSUPPORTED_SCOPES = new Set(['axis2-client', 'operation', 'registry', 'system', 'analytics', 'env', 'file']);

/** How many times parseSequence ran in this thread: tests use it to prove the hot path never parses. */
let parseCount = 0;
export function sequenceParseCount(): number { return parseCount; }

/** Parses one sequence file. `file` is used in errors and kept on the AST. */
export function parseSequence(xmlText: string, file: string): SequenceAst {
  parseCount++;
  return new SequenceParser(xmlText, file).parse();
}

class SequenceParser {
  private readonly lineStarts: number[] = [0];

  constructor(private readonly source: string, private readonly file: string) {
    for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  private error(line: number, element: string, reason: string, column?: number): SequenceDeployError {
    return new SequenceDeployError(this.file, line, element, reason, column);
  }

  parse(): SequenceAst {
    if (this.source.trim() === '') throw this.error(0, '', 'the file is empty');
    const valid = XMLValidator.validate(this.source, { allowBooleanAttributes: false });
    if (valid !== true) {
      throw this.error(valid.err.line ?? 0, '', `malformed XML: ${valid.err.msg}`, valid.err.col);
    }
    let doc: unknown[];
    try {
      doc = parser.parse(this.source) as unknown[];
    } catch (err) {
      throw this.error(0, '', `malformed XML: ${(err as Error).message}`);
    }
    const roots = this.elements(doc);
    if (roots.length !== 1) {
      throw this.error(roots[1]?.line ?? 0, roots[1]?.name ?? '', `a sequence file holds exactly one root element, found ${roots.length}`);
    }
    const root = roots[0]!;
    if (root.local !== 'sequence') {
      throw this.error(root.line, root.name, 'the root element must be <sequence> (one sequence per file)');
    }
    const name = root.attrs['name'];
    if (!name) throw this.error(root.line, 'sequence', 'missing required attribute name');
    if (root.attrs['key'] !== undefined) throw this.error(root.line, 'sequence', 'a root <sequence> takes name, not key');
    const refs = new Set<string>();
    const onError = root.attrs['onError'] || null;
    if (onError) {
      this.checkKey(onError, root, 'onError');
      refs.add(onError);
    }
    const body = this.mediators(root.children, refs);
    return { name, file: this.file, line: root.line, onError, body, refs: [...refs] };
  }

  // ---- XML tree ----

  private position(index: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= index) lo = mid; else hi = mid - 1;
    }
    return { line: lo + 1, column: index - this.lineStarts[lo]! + 1 };
  }

  private elements(nodes: unknown[]): Element[] {
    const out: Element[] = [];
    for (const raw of nodes) {
      const node = raw as Record<string | symbol, unknown>;
      const tag = Object.keys(node).find((k) => k !== ':@');
      if (tag === undefined || tag === '#text' || tag === '#cdata') continue;
      const meta = node[META] as { startIndex?: number; endIndex?: number } | undefined;
      const start = meta?.startIndex ?? 0;
      const end = meta?.endIndex ?? start;
      const { line, column } = this.position(start);
      const childNodes = (node[tag] as unknown[]) ?? [];
      const attrs = (node[':@'] as Record<string, string> | undefined) ?? {};
      const colon = tag.indexOf(':');
      out.push({
        name: tag,
        local: colon >= 0 ? tag.slice(colon + 1) : tag,
        attrs,
        children: this.elements(childNodes),
        text: textOf(childNodes),
        line,
        column,
        inner: this.innerSource(start, end),
      });
    }
    return out;
  }

  /** Source between the end of the opening tag and the start of the closing tag. */
  private innerSource(start: number, end: number): string {
    const s = this.source;
    let quote = '';
    let i = start + 1;
    for (; i < end; i++) {
      const c = s[i]!;
      if (quote) { if (c === quote) quote = ''; continue; }
      if (c === '"' || c === '\'') quote = c;
      else if (c === '>') break;
    }
    if (s[i - 1] === '/') return '';
    // `end` is exclusive and the element ends with `</name>`: search before its last two characters, or
    // the parent's closing tag right after it would match.
    const close = s.lastIndexOf('</', end - 3);
    return close > i ? s.slice(i + 1, close) : '';
  }

  // ---- mediators ----

  private mediators(children: readonly Element[], refs: Set<string>): MediatorAst[] {
    const out: MediatorAst[] = [];
    for (const el of children) {
      const m = this.mediator(el, refs);
      if (m) out.push(m);
    }
    return out;
  }

  private mediator(el: Element, refs: Set<string>): MediatorAst | null {
    switch (el.local) {
      case 'description': return null;
      case 'property': return this.property(el);
      case 'payloadFactory': return this.payloadFactory(el);
      case 'header': return this.header(el);
      case 'log': return this.log(el);
      case 'filter': return this.filter(el, refs);
      case 'switch': return this.switchMediator(el, refs);
      case 'sequence': return this.sequenceRef(el, refs);
      case 'respond':
      case 'drop':
      case 'loopback':
        this.noChildren(el);
        return { kind: el.local, line: el.line };
      case 'send': return this.send(el);
      case 'makefault': return this.makefault(el);
      case 'in':
      case 'out': {
        const flow: FlowAst = { kind: el.local, line: el.line, body: this.mediators(el.children, refs) };
        return flow;
      }
      default:
        throw this.error(el.line, el.name, `unknown mediator <${el.name}> (supported: property, payloadFactory, header, log, filter, switch, sequence, respond, send, drop, makefault, loopback, in, out)`, el.column);
    }
  }

  private noChildren(el: Element): void {
    const child = el.children.find((c) => c.local !== 'description');
    if (child) throw this.error(child.line, el.name, `<${el.name}> takes no child element (found <${child.name}>)`);
  }

  private required(el: Element, attr: string): string {
    const v = el.attrs[attr];
    if (v === undefined || v.trim() === '') throw this.error(el.line, el.name, `missing required attribute ${attr}`, el.column);
    return v;
  }

  private expression(el: Element, text: string, attr = 'expression'): ExprAst {
    try {
      return parseExpression(text);
    } catch (err) {
      if (err instanceof ExpressionError) throw this.error(el.line, el.name, `${attr}: ${err.message}`);
      throw err;
    }
  }

  /** `value` xor `expression`; `what` names the pair in messages. */
  private valueSource(el: Element, required: boolean): ValueSource {
    const value = el.attrs['value'];
    const expression = el.attrs['expression'];
    if (value !== undefined && expression !== undefined) throw this.error(el.line, el.name, 'give value or expression, not both');
    if (expression !== undefined) {
      if (expression.trim() === '') throw this.error(el.line, el.name, 'expression is empty');
      return { expr: this.expression(el, expression), exprText: expression };
    }
    if (value !== undefined) return { value };
    if (required) throw this.error(el.line, el.name, 'missing required attribute value or expression', el.column);
    return {};
  }

  private property(el: Element): PropertyAst {
    const name = this.required(el, 'name');
    const action = (el.attrs['action'] ?? 'set').toLowerCase();
    if (action !== 'set' && action !== 'remove') throw this.error(el.line, el.name, `action must be set or remove, not "${el.attrs['action']}"`);
    const scope = this.scope(el);
    const typeText = (el.attrs['type'] ?? 'STRING').toUpperCase();
    const type = PROPERTY_TYPES.find((t) => t === typeText);
    if (!type) throw this.error(el.line, el.name, `type ${el.attrs['type']} is not supported (${PROPERTY_TYPES.join(', ')})`);
    if (el.attrs['pattern'] !== undefined) throw this.error(el.line, el.name, 'the pattern/group attributes are not supported');
    const child = el.children.find((c) => c.local !== 'description');
    if (child) throw this.error(child.line, el.name, 'inline XML values (OM type) are not supported');
    if (scope === 'transport') this.headerName(el, name);
    if (action === 'remove') return { kind: 'property', line: el.line, name, action, scope, type };
    const src = this.valueSource(el, true);
    if (scope === 'transport' || (scope === 'axis2' && (name === 'messageType' || name === 'ContentType'))) this.headerValue(el, name, src);
    if (src.value !== undefined && type !== 'STRING' && type !== 'BOOLEAN' && !isNumberOfType(src.value, type)) {
      throw this.error(el.line, el.name, `value "${src.value}" is not ${type === 'DOUBLE' || type === 'FLOAT' ? 'a number' : 'an integer'} (type ${type})`);
    }
    return { kind: 'property', line: el.line, name, action, scope, type, ...src };
  }

  private scope(el: Element): PropertyScope {
    const raw = el.attrs['scope'] ?? 'default';
    const scope = SCOPES[raw.toLowerCase()];
    if (scope) return scope;
    const why = UNSUPPORTED_SCOPES.has(raw.toLowerCase()) ? 'is not supported' : 'is unknown';
    throw this.error(el.line, el.name, `scope "${raw}" ${why} (default, axis2, transport)`);
  }

  private payloadFactory(el: Element): PayloadFactoryAst {
    const mediaType = (el.attrs['media-type'] ?? 'xml').toLowerCase();
    if (mediaType !== 'json' && mediaType !== 'xml' && mediaType !== 'text') {
      throw this.error(el.line, el.name, `media-type must be json, xml or text, not "${el.attrs['media-type']}"`);
    }
    if (el.attrs['template-type'] && el.attrs['template-type'].toLowerCase() !== 'default') {
      throw this.error(el.line, el.name, `template-type ${el.attrs['template-type']} is not supported`);
    }
    const formats = el.children.filter((c) => c.local === 'format');
    if (formats.length !== 1) throw this.error(el.line, el.name, formats.length ? 'only one <format> is allowed' : 'missing required child <format>');
    const format = formats[0]!;
    if (format.attrs['key'] !== undefined) throw this.error(format.line, 'format', 'formats from the registry (key) are not supported; write the format inline');
    let text: string;
    if (mediaType === 'xml') {
      text = format.inner.trim();
      if (text === '') throw this.error(format.line, 'format', 'the format is empty');
    } else {
      const child = format.children[0];
      if (child) throw this.error(child.line, 'format', `a ${mediaType} format is text; found element <${child.name}> (wrap it in CDATA)`);
      text = format.text.trim();
    }
    const args: PayloadArgAst[] = [];
    for (const c of el.children) {
      if (c.local === 'format' || c.local === 'description') continue;
      if (c.local !== 'args') throw this.error(c.line, c.name, `unexpected <${c.name}> in payloadFactory (format, args)`);
      for (const a of c.children) {
        if (a.local !== 'arg') throw this.error(a.line, a.name, `unexpected <${a.name}> in args (arg)`);
        args.push(this.payloadArg(a));
      }
    }
    const parts: string[] = [];
    const slots: number[] = [];
    const re = /\$(\d+)/g;
    let last = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const n = Number(m[1]);
      if (n < 1 || n > args.length) {
        throw this.error(format.line, 'format', `$${m[1]} has no matching <arg> (${args.length} given)`);
      }
      parts.push(text.slice(last, m.index));
      slots.push(n - 1);
      last = m.index + m[0].length;
    }
    parts.push(text.slice(last));
    return { kind: 'payloadFactory', line: el.line, mediaType, parts, slots, args, soapEnvelope: mediaType === 'xml' ? envelopeVersion(text) : null };
  }

  private payloadArg(a: Element): PayloadArgAst {
    const evaluator = (a.attrs['evaluator'] ?? 'xml').toLowerCase();
    if (evaluator !== 'xml' && evaluator !== 'json') throw this.error(a.line, 'arg', `evaluator must be xml or json, not "${a.attrs['evaluator']}"`);
    const literal = (a.attrs['literal'] ?? 'false').toLowerCase() === 'true';
    const value = a.attrs['value'];
    const expression = a.attrs['expression'];
    if (value !== undefined && expression !== undefined) throw this.error(a.line, 'arg', 'give value or expression, not both');
    if (value !== undefined) return { line: a.line, json: false, literal: true, value };
    if (expression === undefined || expression.trim() === '') throw this.error(a.line, 'arg', 'missing required attribute value or expression', a.column);
    let expr: ExprAst;
    if (evaluator === 'json' && expression.trim().startsWith('$') && !/^\$(ctx|axis2|trp):/.test(expression.trim())) {
      try {
        expr = { k: 'json', path: parseJsonPath(expression), src: expression.trim() };
      } catch (err) {
        if (err instanceof ExpressionError) throw this.error(a.line, 'arg', `expression: ${err.message}`);
        throw err;
      }
    } else {
      expr = this.expression(a, expression);
    }
    return { line: a.line, json: evaluator === 'json' || expr.k === 'json', literal, expr, exprText: expression };
  }

  private header(el: Element): HeaderAst {
    const name = this.required(el, 'name');
    const action = (el.attrs['action'] ?? 'set').toLowerCase();
    if (action !== 'set' && action !== 'remove') throw this.error(el.line, el.name, `action must be set or remove, not "${el.attrs['action']}"`);
    const scopeRaw = (el.attrs['scope'] ?? 'default').toLowerCase();
    if (scopeRaw !== 'default' && scopeRaw !== 'transport') throw this.error(el.line, el.name, `scope "${el.attrs['scope']}" is not supported (transport, default)`);
    const effective = !(scopeRaw === 'default' && ADDRESSING_HEADERS.has(name.toLowerCase()));
    const child = el.children.find((c) => c.local !== 'description');
    if (child) throw this.error(child.line, el.name, 'inline XML header blocks (SOAP headers) are not supported');
    this.headerName(el, name);
    if (action === 'remove') return { kind: 'header', line: el.line, name, action, effective };
    const src = this.valueSource(el, true);
    this.headerValue(el, name, src);
    return { kind: 'header', line: el.line, name, action, effective, ...src };
  }

  /** A header a sequence names must be a token (RFC 9110 §5.6.2): a space or a colon would split the head. */
  private headerName(el: Element, name: string): void {
    if (!isFieldName(name)) throw this.error(el.line, el.name, fieldProblem(name, ''), el.column);
  }

  /**
   * A literal header value is checked now for controls (a raw line break in the attribute); whether a
   * character above U+00FF may go depends on the flow, and is checked, like an expression's result, each time
   * the value is set (mediation/message.ts HeaderMap).
   */
  private headerValue(el: Element, name: string, src: ValueSource): void {
    if (src.value !== undefined && badValueCharAt(src.value, true) >= 0) throw this.error(el.line, el.name, fieldProblem(name, src.value, true), el.column);
  }

  private log(el: Element): LogAst {
    const levelText = (el.attrs['level'] ?? 'simple').toLowerCase();
    const level = LOG_LEVELS.find((l) => l === levelText);
    if (!level) throw this.error(el.line, el.name, `level must be one of ${LOG_LEVELS.join(', ')}, not "${el.attrs['level']}"`);
    const categoryText = (el.attrs['category'] ?? 'INFO').toUpperCase();
    const category = LOG_CATEGORIES.find((c) => c === categoryText);
    if (!category) throw this.error(el.line, el.name, `category must be one of ${LOG_CATEGORIES.join(', ')}, not "${el.attrs['category']}"`);
    const properties: LogPropertyAst[] = [];
    for (const c of el.children) {
      if (c.local === 'description') continue;
      if (c.local !== 'property') throw this.error(c.line, c.name, `unexpected <${c.name}> in log (property)`);
      properties.push({ name: this.required(c, 'name'), ...this.valueSource(c, true) });
    }
    return { kind: 'log', line: el.line, level, category, separator: el.attrs['separator'] ?? ', ', properties };
  }

  private compileRegex(el: Element, regex: string): void {
    try {
      wholeMatchRegex(regex);
    } catch (err) {
      throw this.error(el.line, el.name, `regex "${regex}" is not valid: ${(err as Error).message}`);
    }
  }

  private filter(el: Element, refs: Set<string>): FilterAst {
    const source = el.attrs['source'];
    const regex = el.attrs['regex'];
    const xpath = el.attrs['xpath'];
    let cond: Pick<FilterAst, 'source' | 'regex' | 'condition'>;
    if (xpath !== undefined) {
      if (source !== undefined || regex !== undefined) throw this.error(el.line, el.name, 'give source and regex, or xpath, not both');
      cond = { condition: this.expression(el, xpath, 'xpath') };
    } else {
      if (source === undefined || regex === undefined) {
        throw this.error(el.line, el.name, `missing required attribute ${source === undefined ? 'source' : 'regex'} (or give xpath)`, el.column);
      }
      this.compileRegex(el, regex);
      cond = { source: this.expression(el, source, 'source'), regex };
    }
    const thenEl = el.children.filter((c) => c.local === 'then');
    const elseEl = el.children.filter((c) => c.local === 'else');
    const others = el.children.filter((c) => c.local !== 'then' && c.local !== 'else' && c.local !== 'description');
    if (thenEl.length > 1 || elseEl.length > 1) throw this.error(el.line, el.name, 'at most one <then> and one <else>');
    if ((thenEl.length || elseEl.length) && others.length) {
      throw this.error(others[0]!.line, el.name, `<${others[0]!.name}> beside <then>/<else>: put it inside one of them`);
    }
    const thenBody = thenEl.length ? this.mediators(thenEl[0]!.children, refs) : this.mediators(others, refs);
    const elseBody = elseEl.length ? this.mediators(elseEl[0]!.children, refs) : [];
    return { kind: 'filter', line: el.line, ...cond, then: thenBody, else: elseBody };
  }

  private switchMediator(el: Element, refs: Set<string>): SwitchAst {
    const source = this.expression(el, this.required(el, 'source'), 'source');
    const cases: SwitchCaseAst[] = [];
    let def: MediatorAst[] = [];
    let seenDefault = false;
    for (const c of el.children) {
      if (c.local === 'description') continue;
      if (c.local === 'case') {
        const regex = this.required(c, 'regex');
        this.compileRegex(c, regex);
        cases.push({ line: c.line, regex, body: this.mediators(c.children, refs) });
      } else if (c.local === 'default') {
        if (seenDefault) throw this.error(c.line, 'default', 'only one <default> is allowed');
        seenDefault = true;
        def = this.mediators(c.children, refs);
      } else {
        throw this.error(c.line, c.name, `unexpected <${c.name}> in switch (case, default)`);
      }
    }
    return { kind: 'switch', line: el.line, source, cases, default: def };
  }

  private checkKey(key: string, el: Element, attr: string): void {
    if (key.startsWith('{') || key.startsWith('gov:') || key.startsWith('conf:')) {
      throw this.error(el.line, el.name, `${attr} "${key}": dynamic and registry keys are not supported; name a deployed sequence`);
    }
  }

  private sequenceRef(el: Element, refs: Set<string>): MediatorAst {
    if (el.attrs['name'] !== undefined && el.attrs['key'] === undefined) {
      throw this.error(el.line, el.name, 'a nested <sequence> must reference a deployed sequence with key="..." (anonymous sequences are not supported)');
    }
    const key = this.required(el, 'key');
    this.checkKey(key, el, 'key');
    this.noChildren(el);
    refs.add(key);
    return { kind: 'sequence', line: el.line, key };
  }

  private send(el: Element): MediatorAst {
    const child = el.children.find((c) => c.local !== 'description');
    if (child) {
      throw this.error(child.line, child.name, '<send> with an endpoint is not supported: a plain <send/> sends to the API\'s endpoint (or to the client in a response or fault flow)');
    }
    if (el.attrs['receive'] !== undefined) throw this.error(el.line, el.name, 'the receive attribute is not supported');
    return { kind: 'send', line: el.line };
  }

  private makefault(el: Element): MakefaultAst {
    const version = (el.attrs['version'] ?? 'soap11').toLowerCase();
    if (version !== 'soap11' && version !== 'soap12' && version !== 'pox') {
      throw this.error(el.line, el.name, `version must be soap11, soap12 or pox, not "${el.attrs['version']}"`);
    }
    let code = '';
    let reason: ValueSource | undefined;
    let detail: MakefaultAst['detail'];
    for (const c of el.children) {
      switch (c.local) {
        case 'code': code = this.required(c, 'value'); break;
        case 'reason': reason = this.valueSource(c, true); break;
        case 'detail': {
          const src = this.valueSource(c, false);
          detail = src.value !== undefined || src.expr ? src : { xml: c.inner.trim() };
          break;
        }
        case 'node': case 'role': case 'description': break;
        default: throw this.error(c.line, c.name, `unexpected <${c.name}> in makefault (code, reason, detail, node, role)`);
      }
    }
    if (version !== 'pox' && code === '') throw this.error(el.line, el.name, 'missing required child <code value="..."/>');
    if (!reason) throw this.error(el.line, el.name, 'missing required child <reason value="..."/> (or expression)');
    return { kind: 'makefault', line: el.line, version, code, reason, ...(detail ? { detail } : {}) };
  }
}

function textOf(nodes: unknown[]): string {
  let text = '';
  for (const raw of nodes) {
    const node = raw as Record<string, unknown>;
    if ('#text' in node) text += String(node['#text']);
    else if ('#cdata' in node) text += textOf(node['#cdata'] as unknown[]);
  }
  return text;
}

/** Whether `text` converts to a property of `type` (INTEGER, LONG, SHORT: whole numbers; DOUBLE, FLOAT). */
export function isNumberOfType(text: string, type: PropertyType): boolean {
  const t = text.trim();
  if (type === 'DOUBLE' || type === 'FLOAT') return t !== '' && Number.isFinite(Number(t));
  return /^[+-]?\d+$/.test(t);
}

/** The SOAP version when an xml format's root element is a SOAP envelope. */
function envelopeVersion(format: string): '11' | '12' | null {
  const m = /^<(?:([A-Za-z_][\w.-]*):)?Envelope\b([^>]*)>/.exec(format);
  if (!m) return null;
  const decl = m[1] ? `xmlns:${m[1]}` : 'xmlns';
  const ns = new RegExp(`${decl}\\s*=\\s*["']([^"']+)["']`).exec(m[2] ?? '')?.[1];
  if (ns === 'http://schemas.xmlsoap.org/soap/envelope/') return '11';
  if (ns === 'http://www.w3.org/2003/05/soap-envelope') return '12';
  return null;
}
