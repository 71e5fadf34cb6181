import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml, YAMLParseError } from 'yaml';

/** An OpenAPI document that cannot be imported: one line, with file (and line when the parser knows it). */
export class OpenApiError extends Error {
  readonly code = 'SLUICE_OPENAPI_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'OpenApiError';
  }
}

export type SpecDocument = Record<string, unknown>;

export interface LoadedSpec {
  readonly file: string;
  /** The document with every $ref it holds (internal, and to files beside it) replaced by its target. */
  readonly doc: SpecDocument;
  readonly dialect: 'openapi-3' | 'swagger-2';
  /** `3.0.3`, `3.1.0`, `2.0`. */
  readonly specVersion: string;
}

/** A spec or a file it references larger than this is refused (a YAML or JSON document of an API is far smaller). */
export const MAX_SPEC_BYTES = 16 * 1024 * 1024;

/** What a $ref may name: documents only (not /etc/passwd, not a device or a FIFO). */
const REFERENCE_EXTENSIONS = /\.(json|ya?ml)$/i;

/**
 * Where the resolved document holds a value no JSON or YAML text makes (a function, Object.prototype), as a
 * path; null when there is none. The resolver follows a pointer token with `obj[token]`, so a $ref to
 * `#/components/schemas/constructor` resolves to Object itself instead of failing as a missing pointer
 * (test/fixtures/openapi/attacks/inherited-ref.yaml).
 */
function foreignValueAt(doc: unknown): string | null {
  const seen = new Set<object>();
  const walk = (v: unknown, at: string): string | null => {
    if (typeof v === 'function' || v === Object.prototype || v === Array.prototype || v === Function.prototype) return at || '/';
    if (v === null || typeof v !== 'object' || seen.has(v)) return null;
    seen.add(v);
    for (const k of Object.keys(v)) {
      const found = walk((v as Record<string, unknown>)[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (found !== null) return found;
    }
    return null;
  };
  return walk(doc, '');
}

/** A path the file resolver was given: an absolute path, or a file: URL. */
function toPath(url: string): string | null {
  if (/^file:/i.test(url)) return fileURLToPath(url);
  if (/^[a-z][a-z0-9+.-]+:/i.test(url) && !/^[a-z]:[\\/]/i.test(url)) return null;
  try { return decodeURIComponent(url); } catch { return url; }
}

/**
 * Reads an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML) and resolves its $refs with
 * @apidevtools/json-schema-ref-parser. What it may read is bounded: regular .json/.yaml/.yml files (a $ref to
 * /etc/passwd or /dev/zero is refused; `../common/Error.json` beside the spec's folder is a usual layout and
 * is read), no remote (http) references, at most MAX_SPEC_BYTES per file, YAML aliases bounded by the yaml
 * parser (maxAliasCount).
 */
export async function loadOpenApi(specFile: string): Promise<LoadedSpec> {
  const file = path.resolve(specFile);
  let st: fs.Stats;
  try { st = fs.statSync(file); } catch (err) {
    throw new OpenApiError(`${specFile}: cannot be read: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (!st.isFile()) throw new OpenApiError(`${specFile}: is not a file`);
  if (st.size > MAX_SPEC_BYTES) throw new OpenApiError(`${specFile}: larger than ${MAX_SPEC_BYTES} bytes`);
  // References are relative to where the document really is (a symlinked spec reads its own neighbours).
  const real = fs.realpathSync(file);

  // The resolver wraps what a reader throws in an error of its own without the message: the first refusal is
  // kept here and reported instead.
  let refused: OpenApiError | null = null;
  const refuse = (message: string): never => { refused ??= new OpenApiError(message); throw refused; };
  const readConfined = (url: string): Buffer => {
    const p = toPath(url);
    if (p === null) return refuse(`${url}: remote references are not fetched; download the file beside the specification and refer to it by path`);
    if (!REFERENCE_EXTENSIONS.test(p)) return refuse(`${p}: a referenced file must be a .json, .yaml or .yml document`);
    let rst: fs.Stats;
    try { rst = fs.statSync(p); } catch { return refuse(`${p}: referenced file not found`); }
    if (!rst.isFile()) return refuse(`${p}: a referenced file must be a regular file`);
    if (rst.size > MAX_SPEC_BYTES) return refuse(`${p}: larger than ${MAX_SPEC_BYTES} bytes`);
    return fs.readFileSync(p);
  };

  const parseText = (text: string, where: string): unknown => {
    const trimmed = text.replace(/^\uFEFF/, '');
    if (/^\s*[{[]/.test(trimmed)) {
      try { return JSON.parse(trimmed); } catch (err) { throw new OpenApiError(`${where}: not valid JSON: ${(err as Error).message}`); }
    }
    try {
      return parseYaml(trimmed, { maxAliasCount: 1000, uniqueKeys: true, prettyErrors: true });
    } catch (err) {
      if (err instanceof YAMLParseError) {
        const at = err.linePos?.[0];
        throw new OpenApiError(`${where}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML: ${err.message.split('\n')[0]}`);
      }
      throw err;
    }
  };

  let doc: SpecDocument;
  try {
    const parser = new $RefParser();
    doc = await parser.dereference(real, {
      resolve: {
        external: true,
        http: false,
        file: { order: 1, canRead: (f: { url: string }) => toPath(f.url) !== null, read: (f: { url: string }) => readConfined(f.url) },
      },
      parse: {
        // One parser for JSON and YAML alike (JSON is YAML), with our limits and located errors.
        json: false,
        text: false,
        binary: false,
        yaml: { order: 1, allowEmpty: false, canParse: true, parse: (f: { url: string; data: string | Buffer }) => parseText(f.data.toString(), toPath(f.url) ?? f.url) },
      },
      dereference: { circular: 'ignore' },
    }) as SpecDocument;
  } catch (err) {
    if (refused) throw refused;
    if (err instanceof OpenApiError) throw err;
    // The resolver wraps our errors; its own (a $ref to a missing pointer) say what and where.
    const inner = (err as { cause?: unknown }).cause;
    if (inner instanceof OpenApiError) throw inner;
    const msg = (err as Error).message.replace(/\s+/g, ' ').trim();
    throw new OpenApiError(`${specFile}: ${/remote|http/i.test(msg) && !/Error opening/.test(msg) ? `${msg} (remote references are not fetched)` : msg}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new OpenApiError(`${specFile}: not an OpenAPI document (expected an object at the top)`);
  const foreign = foreignValueAt(doc);
  if (foreign !== null) {
    throw new OpenApiError(`${specFile}: a $ref at ${foreign} names nothing in the document (it names a member every JavaScript object inherits, such as constructor or __proto__)`);
  }
  const openapi = doc['openapi'];
  const swagger = doc['swagger'];
  if (typeof openapi === 'string' && /^3\.\d+(\.\d+)?/.test(openapi)) return { file, doc, dialect: 'openapi-3', specVersion: openapi };
  if (String(swagger) === '2.0') return { file, doc, dialect: 'swagger-2', specVersion: '2.0' };
  throw new OpenApiError(`${specFile}: not an OpenAPI 3.x or Swagger 2.0 document (openapi: ${JSON.stringify(openapi ?? null)}, swagger: ${JSON.stringify(swagger ?? null)})`);
}
