import fs from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { SourceLocator } from '../../conf/source-locator.js';

/** A problem in a declarative file, located as well as the source allows. */
export class DeclarativeFileError extends Error {
  readonly code = 'SLUICE_DECLARATIVE_FILE';
  constructor(readonly file: string, message: string, readonly line?: number, readonly column?: number) {
    super(`${file}${line !== undefined ? `:${line}${column !== undefined ? `:${column}` : ''}` : ''}: ${message}`);
    this.name = 'DeclarativeFileError';
  }
}

/** Reads and parses one TOML file; syntax errors carry line and column. */
export function readTomlFile(file: string): Record<string, unknown> {
  return readTomlSource(file).doc;
}

/** Reads and parses one TOML file, with a locator that gives the line of a key path for later errors. */
export function readTomlSource(file: string): { doc: Record<string, unknown>; locator: SourceLocator } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new DeclarativeFileError(file, `cannot read: ${(err as Error).message}`);
  }
  try {
    return { doc: parse(text) as Record<string, unknown>, locator: new SourceLocator(text) };
  } catch (err) {
    if (err instanceof TomlError) {
      throw new DeclarativeFileError(file, `TOML syntax error: ${err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '')}`, err.line, err.column);
    }
    throw err;
  }
}

/** Field readers that name the field, the file and (given the source's locator) the line in their errors. */
export class Fields {
  constructor(readonly file: string, private readonly where: string = '', private readonly locator?: SourceLocator) {}

  /** A problem with the key `name` (relative to this reader's table): `file:line: key.path: message`. */
  error(name: string, message: string): DeclarativeFileError {
    const at = `${this.where}${name}`;
    return new DeclarativeFileError(this.file, `${at}: ${message}`, this.locator?.lineOf(at));
  }

  private err(name: string, expected: string, got: unknown): DeclarativeFileError {
    return this.error(name, `expected ${expected}, got ${JSON.stringify(got) ?? String(got)}`);
  }

  string(obj: Record<string, unknown>, name: string, required: true): string;
  string(obj: Record<string, unknown>, name: string, required?: false): string | undefined;
  string(obj: Record<string, unknown>, name: string, required = false): string | undefined {
    const v = obj[name];
    if (v === undefined) {
      if (required) throw this.error(name, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || (required && v.trim() === '')) throw this.err(name, 'a string', v);
    return v;
  }

  oneOf<T extends string>(obj: Record<string, unknown>, name: string, allowed: readonly T[], fallback: T): T {
    const v = obj[name];
    if (v === undefined) return fallback;
    if (typeof v === 'string') {
      const hit = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
      if (hit) return hit;
    }
    throw this.err(name, `one of ${allowed.join(', ')}`, v);
  }

  number(obj: Record<string, unknown>, name: string, fallback?: number): number | undefined {
    const v = obj[name];
    if (v === undefined) return fallback;
    const n = typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw this.err(name, 'a number', v);
    return n;
  }

  boolean(obj: Record<string, unknown>, name: string, fallback: boolean): boolean {
    const v = obj[name];
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    throw this.err(name, 'true or false', v);
  }

  strings(obj: Record<string, unknown>, name: string): string[] {
    const v = obj[name];
    if (v === undefined) return [];
    if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    throw this.err(name, 'a list of strings', v);
  }

  tables(obj: Record<string, unknown>, name: string): Record<string, unknown>[] {
    const v = obj[name];
    if (v === undefined) return [];
    if (Array.isArray(v) && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x))) return v as Record<string, unknown>[];
    throw this.err(name, `[[${name}]] tables`, v);
  }

  table(obj: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
    const v = obj[name];
    if (v === undefined) return undefined;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    throw this.err(name, `a [${name}] table`, v);
  }

  nested(where: string): Fields {
    return new Fields(this.file, `${this.where}${where}.`, this.locator);
  }
}
