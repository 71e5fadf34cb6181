/**
 * The simple object model message builders give XML bodies, and the conversions between XML and JSON that
 * the reference system does implicitly (json-eval over an XML body; messageType application/json over an
 * XML payload, as in seed 000's custom error example; application/xml over a JSON payload).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { XML_PARSER_OPTIONS } from './xml-parser-options.js';
import { addMember } from './members.js';

export interface XmlElement {
  /** Qualified name as written (`am:fault`). */
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly (XmlElement | string)[];
}

const bodyParser = new XMLParser(XML_PARSER_OPTIONS);

export class XmlBodyError extends Error {}

/** Parses an XML document (a message body) into the object model; throws XmlBodyError when malformed. */
export function parseXmlBody(text: string): XmlElement {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlBodyError(`malformed XML body (line ${valid.err.line}): ${valid.err.msg}`);
  const nodes = bodyParser.parse(text) as unknown[];
  const roots = toModel(nodes).filter((c): c is XmlElement => typeof c !== 'string');
  if (roots.length !== 1) throw new XmlBodyError('an XML body has exactly one root element');
  return roots[0]!;
}

function toModel(nodes: unknown[]): (XmlElement | string)[] {
  const out: (XmlElement | string)[] = [];
  for (const raw of nodes) {
    const node = raw as Record<string, unknown>;
    const tag = Object.keys(node).find((k) => k !== ':@');
    if (tag === undefined) continue;
    if (tag === '#text') { out.push(String(node[tag])); continue; }
    if (tag === '#cdata') { for (const c of toModel(node[tag] as unknown[])) out.push(c); continue; }
    out.push({ name: tag, attrs: (node[':@'] as Record<string, string> | undefined) ?? {}, children: toModel(node[tag] as unknown[]) });
  }
  return out;
}

export function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

export function isXmlElement(v: unknown): v is XmlElement {
  return typeof v === 'object' && v !== null && 'name' in v && 'children' in v && 'attrs' in v;
}

const SOAP_NS = new Set(['http://schemas.xmlsoap.org/soap/envelope/', 'http://www.w3.org/2003/05/soap-envelope']);

/** The SOAP version of an envelope element, or null when it is not one. */
export function soapVersion(el: XmlElement): '11' | '12' | null {
  if (localName(el.name) !== 'Envelope') return null;
  const i = el.name.indexOf(':');
  const ns = el.attrs[i < 0 ? 'xmlns' : `xmlns:${el.name.slice(0, i)}`];
  if (ns === undefined || !SOAP_NS.has(ns)) return null;
  return ns.includes('2003') ? '12' : '11';
}

/** The payload of an envelope: the first element child of its Body (null for an empty Body). */
export function soapPayload(env: XmlElement): XmlElement | null {
  const body = env.children.find((c): c is XmlElement => typeof c !== 'string' && localName(c.name) === 'Body');
  return body?.children.find((c): c is XmlElement => typeof c !== 'string') ?? null;
}

export function textContent(el: XmlElement): string {
  let s = '';
  for (const c of el.children) s += typeof c === 'string' ? c : textContent(c);
  return s;
}

// ---- serialisation ----

const XML_SPECIAL = /[&<>"']/;
const XML_SPECIAL_ALL = /[&<>"']/g;

export function escapeXml(s: string): string {
  if (!XML_SPECIAL.test(s)) return s;
  return s.replace(XML_SPECIAL_ALL, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'));
}

export function serializeXml(el: XmlElement): string {
  let s = `<${el.name}`;
  for (const [k, v] of Object.entries(el.attrs)) s += ` ${k}="${escapeXml(v)}"`;
  if (el.children.length === 0) return `${s}/>`;
  s += '>';
  for (const c of el.children) s += typeof c === 'string' ? escapeXml(c) : serializeXml(c);
  return `${s}</${el.name}>`;
}

// ---- XML -> JSON ----

export interface XmlToJsonOptions {
  /** Values matching this are kept as strings even when they look like numbers or booleans. */
  readonly disableAutoPrimitive?: RegExp | null;
  /** Keep namespace prefixes in member names (`am:fault`) and xmlns attributes. */
  readonly preserveNamespaces?: boolean;
}

const WHOLE = /^-?\d+$/;
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export function autoPrimitive(text: string, opts: XmlToJsonOptions): unknown {
  if (opts.disableAutoPrimitive && opts.disableAutoPrimitive.test(text)) return text;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (JSON_NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n) || !WHOLE.test(text)) return n;
  }
  return text;
}

/**
 * XML -> JSON value, the way the reference's converter does it: an element with text only becomes that text
 * (numbers and booleans as such), repeated names become arrays, attributes become `@name`, mixed text `$`,
 * an empty element null. The root's name is the single member of the result, except the reference's
 * `<jsonObject>` / `<jsonArray>` wrappers, which vanish.
 */
export function xmlToJson(root: XmlElement, opts: XmlToJsonOptions = {}): unknown {
  const local = localName(root.name);
  if (local === 'jsonObject') return elementValue(root, opts) ?? {};
  if (local === 'jsonArray') {
    return root.children.filter((c): c is XmlElement => typeof c !== 'string').map((c) => elementValue(c, opts));
  }
  return { [memberName(root.name, opts)]: elementValue(root, opts) };
}

function memberName(name: string, opts: XmlToJsonOptions): string {
  return opts.preserveNamespaces ? name : localName(name);
}

function elementValue(el: XmlElement, opts: XmlToJsonOptions): unknown {
  const attrs = Object.entries(el.attrs).filter(([k]) => opts.preserveNamespaces || (k !== 'xmlns' && !k.startsWith('xmlns:')));
  const elements = el.children.filter((c): c is XmlElement => typeof c !== 'string');
  let text = '';
  for (const c of el.children) if (typeof c === 'string') text += c;
  if (elements.length === 0 && attrs.length === 0) {
    return text === '' ? null : autoPrimitive(text, opts);
  }
  const obj: Record<string, unknown> = {};
  for (const [k, v] of attrs) obj[`@${memberName(k, opts)}`] = autoPrimitive(v, opts);
  // elementValue never returns an array: addMember's arrays are repetitions.
  for (const c of elements) addMember(obj, memberName(c.name, opts), elementValue(c, opts));
  if (text.trim() !== '') obj['$'] = autoPrimitive(text.trim(), opts);
  return obj;
}

// ---- JSON -> XML ----

const NOT_NAME_CHAR = /[^A-Za-z0-9_.\-:]/g;
const NAME_START_CHAR = /^[A-Za-z_]/;

function xmlName(key: string): string {
  let n = key.replace(NOT_NAME_CHAR, '_');
  if (!NAME_START_CHAR.test(n)) n = `_${n}`;
  return n;
}

function jsonValueToXml(name: string, v: unknown): string {
  if (Array.isArray(v)) return v.map((item) => jsonValueToXml(name, item)).join('');
  const tag = xmlName(name);
  if (v === null || v === undefined) return `<${tag}/>`;
  if (typeof v !== 'object') return `<${tag}>${escapeXml(String(v))}</${tag}>`;
  let attrs = '';
  let inner = '';
  for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
    if (k.startsWith('@') && (child === null || typeof child !== 'object')) attrs += ` ${xmlName(k.slice(1))}="${escapeXml(String(child ?? ''))}"`;
    else if (k === '$' && (child === null || typeof child !== 'object')) inner += escapeXml(String(child ?? ''));
    else inner += jsonValueToXml(k, child);
  }
  return inner === '' ? `<${tag}${attrs}/>` : `<${tag}${attrs}>${inner}</${tag}>`;
}

/** JSON value -> XML text, wrapped the reference's way (`<jsonObject>`, `<jsonArray><jsonElement>`). */
export function jsonToXml(value: unknown): string {
  if (Array.isArray(value)) return `<jsonArray>${value.map((v) => jsonValueToXml('jsonElement', v)).join('')}</jsonArray>`;
  if (value !== null && typeof value === 'object') {
    let inner = '';
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) inner += jsonValueToXml(k, v);
    return `<jsonObject>${inner}</jsonObject>`;
  }
  return `<jsonObject>${value === null || value === undefined ? '' : escapeXml(String(value))}</jsonObject>`;
}

/** JSON value -> XML children (no wrapper), for a JSON argument placed into an XML payloadFactory format. */
export function jsonToXmlFragment(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    let inner = '';
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) inner += jsonValueToXml(k, v);
    return inner;
  }
  return jsonToXml(value);
}

/** Whether a string is a well-formed XML fragment with one root (the reference's "is this XML?" test). */
export function looksLikeXml(s: string): boolean {
  const t = s.trim();
  if (t.length < 4 || t[0] !== '<' || t[t.length - 1] !== '>') return false;
  return XMLValidator.validate(t) === true;
}
