/**
 * Message builders and formatters ([message_builders], [message_formatters] and their custom forms), by
 * content type. A builder turns body bytes into an object model; a formatter turns a message into the bytes
 * of another content type (payloadFactory xml + messageType application/json, as in seed 000's example).
 * Both run only when a mediator needs the body: a pass-through call never builds anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodecModuleRef, CodecSettings } from '../conf/views/mediation.js';
import { CodecLoadError } from './errors.js';
import { addMember, setMember } from './members.js';
import {
  isXmlElement, jsonToXml, parseXmlBody, serializeXml, soapPayload, soapVersion, textContent, xmlToJson,
  type XmlElement, type XmlToJsonOptions,
} from './xml-model.js';

/** The families content types fall into; a conversion happens only between different families. */
export type BodyFamily = 'json' | 'xml' | 'soap11' | 'soap12' | 'form' | 'multipart' | 'text' | 'binary';

export interface MultipartPart {
  readonly name: string | null;
  readonly filename: string | null;
  readonly contentType: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly data: Buffer;
}

/** A built body. `custom` is whatever a custom builder returned (json-eval reads it as a JSON value). */
export type BuiltBody =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'xml'; readonly value: XmlElement; readonly soap: '11' | '12' | null }
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'form'; readonly value: Readonly<Record<string, string | string[]>> }
  | { readonly kind: 'multipart'; readonly value: readonly MultipartPart[] }
  | { readonly kind: 'binary'; readonly value: Buffer }
  | { readonly kind: 'custom'; readonly value: unknown };

/** What a message body looks like to a formatter (a MediationMessage satisfies it). */
export interface FormatSource {
  readonly body: Buffer | null;
  readonly contentType: string | null;
  built(): BuiltBody | null;
}

/** A custom builder module: `export function build(buffer, contentType)`; the result is its object model. */
export interface CustomBuilderModule { build(buffer: Buffer, contentType: string): unknown }
/** A custom formatter module: `export function format(message, contentType)` returning the body to send. */
export interface CustomFormatterModule { format(message: FormatSource, contentType: string): Buffer | string | Uint8Array }

/** What configuration says of the codecs (conf/views/mediation.ts), named here too for codec users. */
export type { CodecModuleRef, CodecSettings };

export class BodyBuildError extends Error {}

/** `Application/JSON; charset=utf-8` -> `application/json`. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

export function familyOf(contentType: string | null | undefined): BodyFamily {
  const mt = mediaTypeOf(contentType);
  if (mt === 'application/json' || mt === 'text/json' || mt === 'text/javascript' || mt === 'application/javascript'
    || mt.startsWith('application/json/') || mt.endsWith('+json')) return 'json';
  if (mt === 'text/xml') return 'soap11';
  if (mt === 'application/soap+xml') return 'soap12';
  if (mt === 'application/xml' || mt.endsWith('+xml')) return 'xml';
  if (mt === 'application/x-www-form-urlencoded') return 'form';
  if (mt.startsWith('multipart/')) return 'multipart';
  if (mt.startsWith('text/')) return 'text';
  return 'binary';
}

// ---- built-in builders ----

function buildJson(buf: Buffer): BuiltBody {
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { kind: 'json', value: undefined };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (err) {
    throw new BodyBuildError(`malformed JSON body: ${(err as Error).message}`);
  }
}

function buildXml(buf: Buffer): BuiltBody {
  const text = buf.toString('utf8');
  if (text.trim() === '') throw new BodyBuildError('empty XML body');
  try {
    const root = parseXmlBody(text);
    const soap = soapVersion(root);
    return { kind: 'xml', value: root, soap };
  } catch (err) {
    throw new BodyBuildError((err as Error).message);
  }
}

function buildForm(buf: Buffer): BuiltBody {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(buf.toString('utf8'))) addMember(out, k, v);
  return { kind: 'form', value: out as Record<string, string | string[]> };
}

/** multipart/form-data split on its boundary; parts stay binary (no streaming, no nested multipart). */
function buildMultipart(buf: Buffer, contentType: string): BuiltBody {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) throw new BodyBuildError('multipart body without a boundary parameter');
  const delimiter = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: MultipartPart[] = [];
  let pos = buf.indexOf(delimiter);
  if (pos < 0) throw new BodyBuildError('multipart body without its boundary');
  for (;;) {
    pos += delimiter.length;
    if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) break; // closing "--"
    if (buf[pos] === 0x0d) pos += 2; else if (buf[pos] === 0x0a) pos += 1;
    const next = buf.indexOf(delimiter, pos);
    if (next < 0) throw new BodyBuildError('multipart body is not terminated');
    let end = next;
    if (buf[end - 1] === 0x0a) end--;
    if (buf[end - 1] === 0x0d) end--;
    const part = buf.subarray(pos, end);
    let headEnd = part.indexOf('\r\n\r\n');
    let sep = 4;
    if (headEnd < 0) { headEnd = part.indexOf('\n\n'); sep = 2; }
    const headText = headEnd < 0 ? '' : part.subarray(0, headEnd).toString('latin1');
    const headers: Record<string, string> = {};
    for (const line of headText.split(/\r?\n/)) {
      const c = line.indexOf(':');
      if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
    }
    const disposition = headers['content-disposition'] ?? '';
    parts.push({
      name: /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? null,
      filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null,
      contentType: headers['content-type'] ?? null,
      headers,
      data: headEnd < 0 ? part : part.subarray(headEnd + sep),
    });
    pos = next;
  }
  return { kind: 'multipart', value: parts };
}

function builtinBuild(buf: Buffer, contentType: string): BuiltBody {
  switch (familyOf(contentType)) {
    case 'json': return buildJson(buf);
    case 'xml': case 'soap11': case 'soap12': return buildXml(buf);
    case 'form': return buildForm(buf);
    case 'multipart': return buildMultipart(buf, contentType);
    case 'text': return { kind: 'text', value: buf.toString('utf8') };
    default: return { kind: 'binary', value: buf };
  }
}

// ---- built-in formatters ----

const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
const TEXT_NS = 'http://ws.apache.org/commons/ns/payload';

export class Codecs {
  private readonly xmlToJsonOptions: XmlToJsonOptions;

  constructor(
    private readonly customBuilders: ReadonlyMap<string, CustomBuilderModule> = new Map(),
    private readonly customFormatters: ReadonlyMap<string, CustomFormatterModule> = new Map(),
    options: { disableAutoPrimitiveRegex?: string | null; preserveNamespaceOnXmlToJson?: boolean } = {},
  ) {
    this.xmlToJsonOptions = {
      disableAutoPrimitive: options.disableAutoPrimitiveRegex ? new RegExp(options.disableAutoPrimitiveRegex) : null,
      preserveNamespaces: options.preserveNamespaceOnXmlToJson ?? false,
    };
  }

  /** Builds a body; throws BodyBuildError when it does not parse as its content type says. */
  build(buf: Buffer, contentType: string): BuiltBody {
    const custom = this.customBuilders.get(mediaTypeOf(contentType));
    if (custom) {
      try {
        return { kind: 'custom', value: custom.build(buf, contentType) };
      } catch (err) {
        throw new BodyBuildError(`custom builder for ${mediaTypeOf(contentType)} failed: ${(err as Error).message}`);
      }
    }
    return builtinBuild(buf, contentType);
  }

  /** The body as a JSON value, for json-eval (XML converted, form fields as members); undefined if none. */
  jsonView(built: BuiltBody): unknown {
    switch (built.kind) {
      case 'json': case 'custom': case 'form': return built.value;
      case 'xml': {
        const el = built.soap ? soapPayload(built.value) : built.value;
        return el ? xmlToJson(el, this.xmlToJsonOptions) : undefined;
      }
      case 'multipart': {
        const out: Record<string, unknown> = {};
        for (const p of built.value) if (p.name !== null && p.filename === null) setMember(out, p.name, p.data.toString('utf8'));
        return out;
      }
      default: return undefined;
    }
  }

  xmlToJson(el: XmlElement): unknown {
    return xmlToJson(el, this.xmlToJsonOptions);
  }

  /**
   * The body converted to `contentType`, or null when no conversion is needed or possible (the bytes are
   * sent as they are). Custom formatters are used whatever the families.
   */
  format(source: FormatSource, contentType: string): Buffer | null {
    const custom = this.customFormatters.get(mediaTypeOf(contentType));
    if (custom) {
      const out = custom.format(source, contentType);
      return typeof out === 'string' ? Buffer.from(out, 'utf8') : Buffer.isBuffer(out) ? out : Buffer.from(out);
    }
    if (!source.body) return null;
    const from = familyOf(source.contentType);
    const to = familyOf(contentType);
    if (from === to || to === 'binary' || to === 'multipart' || from === 'binary' || from === 'multipart') return null;
    const built = source.built();
    if (!built) return null;
    const text = this.convert(built, to);
    return text === null ? null : Buffer.from(text, 'utf8');
  }

  private convert(built: BuiltBody, to: BodyFamily): string | null {
    switch (to) {
      case 'json': {
        const v = this.jsonView(built);
        if (v !== undefined) return JSON.stringify(v);
        return built.kind === 'text' ? JSON.stringify({ text: built.value }) : null;
      }
      case 'xml': return this.toXml(built);
      case 'soap11': case 'soap12': {
        if (built.kind === 'xml' && built.soap) {
          const payload = soapPayload(built.value);
          return envelope(to, payload ? serializeXml(payload) : '');
        }
        const x = this.toXml(built);
        return x === null ? null : envelope(to, x);
      }
      case 'form': {
        const v = this.jsonView(built);
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
        const params = new URLSearchParams();
        for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
          if (Array.isArray(val)) for (const item of val) params.append(k, scalarText(item));
          else params.append(k, scalarText(val));
        }
        return params.toString();
      }
      case 'text': {
        if (built.kind === 'text') return built.value;
        if (built.kind === 'xml') {
          const el = built.soap ? soapPayload(built.value) : built.value;
          return el ? textContent(el) : '';
        }
        if (built.kind === 'form') return new URLSearchParams(built.value as Record<string, string>).toString();
        const v = this.jsonView(built);
        return typeof v === 'string' ? v : v === undefined ? null : JSON.stringify(v);
      }
      default: return null;
    }
  }

  private toXml(built: BuiltBody): string | null {
    if (built.kind === 'xml') {
      const el = built.soap ? soapPayload(built.value) : built.value;
      return el ? serializeXml(el) : '';
    }
    if (built.kind === 'text') return `<text xmlns="${TEXT_NS}">${escapeText(built.value)}</text>`;
    const v = this.jsonView(built);
    if (isXmlElement(v)) return serializeXml(v);
    return v === undefined ? null : jsonToXml(v);
  }
}

const TEXT_SPECIAL = /[&<>]/g;

function escapeText(s: string): string {
  return s.replace(TEXT_SPECIAL, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

function scalarText(v: unknown): string {
  return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function envelope(version: 'soap11' | 'soap12', payload: string): string {
  const ns = version === 'soap11' ? SOAP11_NS : SOAP12_NS;
  return `<soapenv:Envelope xmlns:soapenv="${ns}"><soapenv:Body>${payload}</soapenv:Body></soapenv:Envelope>`;
}

let defaults: Codecs | undefined;

/** The built-in builders and formatters, without custom modules. */
export function defaultCodecs(): Codecs {
  defaults ??= new Codecs();
  return defaults;
}

/**
 * Loads custom builder and formatter modules (dynamic import) and returns the codecs to use. Run at deploy
 * time on the main thread (to report a bad module before anything starts) and once per io thread.
 * Throws CodecLoadError naming the module and why.
 */
export async function loadCodecs(settings: CodecSettings): Promise<Codecs> {
  const builders = new Map<string, CustomBuilderModule>();
  const formatters = new Map<string, CustomFormatterModule>();
  for (const ref of settings.builders) {
    const mod = await importModule(ref, settings.home);
    if (typeof mod['build'] !== 'function') throw new CodecLoadError(ref.contentType, ref.module, 'the module does not export a function build(buffer, contentType)');
    builders.set(mediaTypeOf(ref.contentType), mod as unknown as CustomBuilderModule);
  }
  for (const ref of settings.formatters) {
    const mod = await importModule(ref, settings.home);
    if (typeof mod['format'] !== 'function') throw new CodecLoadError(ref.contentType, ref.module, 'the module does not export a function format(message, contentType)');
    formatters.set(mediaTypeOf(ref.contentType), mod as unknown as CustomFormatterModule);
  }
  if (settings.disableAutoPrimitiveRegex) {
    try { new RegExp(settings.disableAutoPrimitiveRegex); } catch (err) {
      throw new CodecLoadError('application/json', '[mediation] synapse.disable_auto_primitive_regex', `not a valid regex: ${(err as Error).message}`);
    }
  }
  return new Codecs(builders, formatters, {
    disableAutoPrimitiveRegex: settings.disableAutoPrimitiveRegex,
    preserveNamespaceOnXmlToJson: settings.preserveNamespaceOnXmlToJson,
  });
}

async function importModule(ref: CodecModuleRef, home: string): Promise<Record<string, unknown>> {
  const file = path.isAbsolute(ref.module) ? ref.module : path.resolve(home, ref.module);
  if (!fs.existsSync(file)) throw new CodecLoadError(ref.contentType, ref.module, `module not found: ${file}`);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ERR_MODULE_NOT_FOUND' ? `module not found: ${file}` : `cannot load ${file}: ${e.message}`;
    throw new CodecLoadError(ref.contentType, ref.module, why);
  }
}
