import fs from 'node:fs';
import os from 'node:os';
import { parse, TomlError } from 'smol-toml';
import { catalogIndex, type CatalogIndex } from './catalog/index.js';
import type { KeySpec } from './catalog/types.js';
import { Config, elementsOf, type ItemValues } from './config.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { parseDuration } from './duration.js';
import { HomeLayout } from './home.js';
import { RUNTIME_PLACEHOLDERS, TOKEN, WHOLE_REF, isRuntimePlaceholder, type RuntimePlaceholder } from './placeholders.js';
import { SourceLocator } from './source-locator.js';
import { closest } from './suggest.js';
import { checkCrossKeyRules } from './cross-key-rules.js';

export interface LoadOptions {
  /** Unknown keys are errors instead of warnings. */
  readonly strict?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** For the `cpu_cores` computed default; the machine's count when absent. */
  readonly cpuCores?: number;
}

/** One value as written: `path` is concrete (`apim.gateway.environment[0].name`), `specPath` is catalog-shaped. */
interface Leaf {
  readonly path: string;
  readonly specPath: string;
  readonly value: unknown;
  spec?: KeySpec;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Reads `<home>/repository/conf/deployment.toml`. Throws ConfigError with every problem found. */
export function loadConfig(home: string, options: LoadOptions = {}): Config {
  const layout = new HomeLayout(home);
  const file = layout.confFile;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'file not found' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory, not a file' : e.message;
    throw new ConfigError([{ file, message: `cannot read the configuration: ${why}` }]);
  }
  return loadConfigText(text, file, layout, options);
}

export function loadConfigText(text: string, file: string, layout: HomeLayout, options: LoadOptions = {}): Config {
  return new Loader(text, file, layout, options, catalogIndex).load();
}

class Loader {
  private readonly errors: ConfigIssue[] = [];
  private readonly warnings: ConfigIssue[] = [];
  private readonly locator: SourceLocator;
  private readonly leaves = new Map<string, Leaf>();
  /** Elements of arrays of tables as written (`registry_handler[1].nested_property[0]`), even empty ones. */
  private readonly elements: string[] = [];
  private readonly resolved = new Map<string, unknown>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly cpuCores: number;

  constructor(
    private readonly text: string,
    private readonly file: string,
    private readonly layout: HomeLayout,
    private readonly options: LoadOptions,
    private readonly catalog: CatalogIndex,
  ) {
    this.locator = new SourceLocator(text);
    this.env = options.env ?? process.env;
    this.cpuCores = options.cpuCores ?? (os.availableParallelism?.() ?? os.cpus().length);
  }

  load(): Config {
    let doc: Record<string, unknown>;
    try {
      doc = parse(this.text) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof TomlError) {
        const first = err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
        const excerpt = err.message.split('\n').slice(1).join('\n');
        throw new ConfigError([{ file: this.file, line: err.line, column: err.column, message: `TOML syntax error: ${first}${excerpt ? `\n${excerpt}` : ''}` }]);
      }
      throw err;
    }

    this.walk(doc, '', '');
    this.matchCatalog();
    const values = new Map<string, unknown>();
    const items = new Map<string, ItemValues[]>();
    for (const leaf of this.leaves.values()) {
      if (!leaf.spec) continue;
      const raw = this.resolve(leaf.path, []);
      if (raw === FAILED) continue;
      const v = this.coerce(leaf, raw);
      if (v === FAILED) continue;
      if (leaf.spec.repeatable) this.putItem(items, leaf, v);
      else values.set(leaf.spec.path, v);
    }
    // An element that sets nothing is still an element: its required keys are missing.
    for (const path of this.elements) elementAt(items, path);
    this.fillDefaults(values, items);
    const offset = typeof values.get('server.offset') === 'number' ? (values.get('server.offset') as number) : 0;
    this.applyOffset(values, offset);
    this.checkRequired(values, items);
    checkCrossKeyRules(values, items, (path, message, severity = 'error') => this.report(severity, path, message));
    if (this.errors.length) throw new ConfigError(this.errors, this.warnings);
    const written = new Set<string>();
    for (const leaf of this.leaves.values()) if (leaf.spec) written.add(leaf.spec.repeatable ? leaf.spec.section : leaf.spec.path);
    return new Config(this.layout, this.file, values, items, this.catalog, this.warnings, written);
  }

  // ---- reading the document -------------------------------------------------------------------------

  private walk(node: Record<string, unknown>, concrete: string, normalized: string): void {
    for (const [k, v] of Object.entries(node)) {
      const c = concrete ? `${concrete}.${k}` : k;
      const n = normalized ? `${normalized}.${k}` : k;
      // `a.b = 1` and `"a.b" = 2` are different TOML keys but one catalog key: refuse the ambiguity.
      if (this.leaves.has(c) && !isPlainObject(v)) {
        const lines = this.locator.linesOf(c);
        const where = lines.length > 1 ? `lines ${lines.slice(0, -1).join(', ')} and ${lines.at(-1)!}, ` : '';
        this.report('error', c, `set twice (${where}once as a dotted key, once as a quoted key); keep one`, undefined, undefined, lines.at(-1));
        continue;
      }
      if (isPlainObject(v)) {
        if (this.catalog.isTable(n)) this.leaves.set(c, { path: c, specPath: n, value: v });
        else this.walk(v, c, n);
      } else if (Array.isArray(v) && v.length > 0 && v.every(isPlainObject)) {
        if (this.catalog.isTable(n)) { this.leaves.set(c, { path: c, specPath: n, value: v }); continue; }
        v.forEach((el, i) => {
          if (this.isRepeatableSection(`${n}[]`)) this.elements.push(`${c}[${i}]`);
          this.walk(el as Record<string, unknown>, `${c}[${i}]`, `${n}[]`);
        });
      } else {
        this.leaves.set(c, { path: c, specPath: n, value: v });
      }
    }
  }

  /** `registry_handler[].nested_property[]`: an array of tables the catalog knows (by its own name when nested). */
  private isRepeatableSection(normalized: string): boolean {
    return this.catalog.isRepeatable(normalized.replace(/\[\]/g, ''));
  }

  private matchCatalog(): void {
    const known = [...this.catalog.exact.keys()];
    for (const leaf of this.leaves.values()) {
      let spec = this.catalog.find(leaf.specPath);
      // A repeatable section nested in another ([[a.b]] then [[a.b.c]]) is catalogued by its own name.
      if (!spec && leaf.specPath.split('[]').length > 2) {
        const last = leaf.specPath.lastIndexOf('[]');
        spec = this.catalog.find(leaf.specPath.slice(0, last).replace(/\[\]/g, '') + leaf.specPath.slice(last));
      }
      if (spec) { leaf.spec = spec; continue; }
      const suggestion = closest(leaf.specPath, known);
      this.report(this.options.strict ? 'error' : 'warning', leaf.path, 'unknown key', undefined, suggestion);
    }
  }

  // ---- placeholders ---------------------------------------------------------------------------------

  private resolve(path: string, stack: string[]): unknown {
    if (this.resolved.has(path)) return this.resolved.get(path);
    const leaf = this.leaves.get(path);
    if (!leaf) return FAILED;
    if (stack.includes(path)) {
      this.report('error', stack[0]!, `placeholder cycle: ${[...stack, path].join(' -> ')}`);
      return FAILED;
    }
    const v = this.resolveValue(leaf.value, [...stack, path]);
    this.resolved.set(path, v);
    return v;
  }

  private resolveValue(value: unknown, stack: string[]): unknown {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const el of value) {
        const r = this.resolveValue(el, stack);
        if (r === FAILED) return FAILED;
        out.push(r);
      }
      return out;
    }
    if (typeof value !== 'string' || !value.includes('$')) return value;
    const whole = WHOLE_REF.exec(value);
    if (whole) return this.lookupRef(whole[2]!.trim(), stack);
    let failed = false;
    const out = value.replace(TOKEN, (_m, kind: string | undefined, name: string | undefined, runtime: string | undefined) => {
      if (failed) return '';
      let r: unknown;
      if (runtime !== undefined) r = this.runtime(runtime.trim(), stack);
      else if (kind === 'env') r = this.envVar(name!.trim(), stack);
      else r = this.lookupRef(name!.trim(), stack);
      if (r === FAILED) { failed = true; return ''; }
      return Array.isArray(r) ? r.join(',') : String(r);
    });
    return failed ? FAILED : out;
  }

  private envVar(name: string, stack: string[]): unknown {
    if (name === '') {
      this.report('error', stack[0]!, '$env{} names no environment variable', '$env{NAME}');
      return FAILED;
    }
    const v = this.env[name];
    if (v === undefined) {
      this.report('error', stack[0]!, `environment variable ${name} is not set ($env{${name}})`);
      return FAILED;
    }
    return v;
  }

  private lookupRef(name: string, stack: string[]): unknown {
    if (this.leaves.has(name)) {
      const v = this.resolve(name, stack);
      const leaf = this.leaves.get(name)!;
      return v === FAILED || !leaf.spec ? v : this.coerce(leaf, v);
    }
    const spec = this.catalog.exact.get(name);
    if (spec && spec.default !== undefined) return spec.default;
    if (spec && spec.computedDefault) return this.computed(spec);
    this.report('error', stack[0]!, spec
      ? `$ref{${name}} refers to a key that is not set and has no default`
      : `$ref{${name}} refers to an unknown key`, undefined, spec ? undefined : closest(name, this.catalog.exact.keys()));
    return FAILED;
  }

  private runtime(name: string, stack: string[]): unknown {
    if (!isRuntimePlaceholder(name)) {
      const known = Object.keys(RUNTIME_PLACEHOLDERS);
      const near = closest(name, known);
      this.report('error', stack[0]!, `unknown runtime placeholder \${${name}}`, `one of ${known.map((k) => `\${${k}}`).join(', ')}`, near === undefined ? undefined : `\${${near}}`);
      return FAILED;
    }
    return this.runtimeValue(name, stack);
  }

  private runtimeValue(name: RuntimePlaceholder, stack: string[]): unknown {
    const portOf = (path: string): unknown => {
      const base = this.leaves.has(path) ? this.lookupRef(path, stack) : this.catalog.exact.get(path)?.default;
      const offset = this.leaves.has('server.offset') ? this.lookupRef('server.offset', stack) : 0;
      if (base === FAILED || offset === FAILED) return FAILED;
      return Number(base) + Number(offset);
    };
    switch (name) {
      case 'carbon.home': case 'sluice.home': return this.layout.root;
      case 'carbon.host': return this.leaves.has('server.hostname') ? this.lookupRef('server.hostname', stack) : 'localhost';
      case 'carbon.protocol': return 'https';
      case 'carbon.context': return '/';
      case 'carbon.management.port': case 'mgt.transport.https.port': return portOf('transport.https.properties.port');
      case 'mgt.transport.http.port': return portOf('transport.http.properties.port');
      case 'http.nio.port': return portOf('transport.passthru_http.listener.parameters.port');
      case 'https.nio.port': return portOf('transport.passthru_https.listener.parameters.port');
    }
  }

  // ---- types and values -----------------------------------------------------------------------------

  private coerce(leaf: Leaf, raw: unknown): unknown {
    const spec = leaf.spec!;
    const bad = (expected: string): typeof FAILED => {
      this.report('error', leaf.path, `invalid value ${show(raw)}`, expected);
      return FAILED;
    };
    let v: unknown;
    switch (spec.type) {
      case 'boolean':
        if (typeof raw === 'boolean') v = raw;
        else if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) v = raw.trim().toLowerCase() === 'true';
        else return bad('true or false');
        break;
      case 'integer': {
        const n = toNumber(raw);
        if (n === undefined || !Number.isInteger(n)) return bad('an integer');
        v = n;
        break;
      }
      case 'float': {
        const n = toNumber(raw);
        if (n === undefined) return bad('a number');
        v = n;
        break;
      }
      case 'duration': {
        const ms = parseDuration(raw);
        if (ms === undefined) return bad('a duration such as 180000, "3m", "15 minutes" or "2s"');
        v = ms;
        break;
      }
      case 'string':
        if (typeof raw === 'string') v = raw;
        else if (typeof raw === 'number' || typeof raw === 'boolean' || typeof raw === 'bigint') v = String(raw);
        else return bad('a string');
        break;
      case 'string[]':
        if (Array.isArray(raw) && raw.every((x) => typeof x === 'string' || typeof x === 'number')) v = raw.map(String);
        else if (typeof raw === 'string') v = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
        else return bad('a list of strings');
        break;
      case 'integer[]':
        if (Array.isArray(raw) && raw.every((x) => Number.isInteger(toNumber(x)))) v = raw.map((x) => toNumber(x)!);
        else return bad('a list of integers');
        break;
      case 'table':
        if (isPlainObject(raw) || Array.isArray(raw)) v = raw;
        else return bad('a table of key-value pairs');
        break;
    }
    if (spec.allowed && typeof v === 'string') {
      const ok = spec.caseInsensitive
        ? spec.allowed.some((a) => a.toLowerCase() === (v as string).toLowerCase())
        : spec.allowed.includes(v);
      if (!ok) {
        const near = closest(v, spec.allowed);
        this.report('error', leaf.path, `invalid value ${show(v)}`, `one of ${spec.allowed.join(', ')}`, near);
        return FAILED;
      }
    }
    if (spec.min !== undefined && typeof v === 'number' && v < spec.min) return bad(`a number of at least ${spec.min}`);
    if (spec.port && typeof v === 'number' && (v < 1 || v > 65535)) return bad('a port number from 1 to 65535');
    return v;
  }

  /** Puts a value into its element; an element nested in another's is kept inside it (see elementsOf). */
  private putItem(items: Map<string, ItemValues[]>, leaf: Leaf, v: unknown): void {
    const end = leaf.path.lastIndexOf(']');
    elementAt(items, leaf.path.slice(0, end + 1))[leaf.path.slice(end + 2)] = v;
  }

  private computed(spec: KeySpec): unknown {
    if (spec.computedDefault === 'cpu_cores') return this.cpuCores;
    return undefined;
  }

  private fillDefaults(values: Map<string, unknown>, items: Map<string, ItemValues[]>): void {
    for (const spec of this.catalog.all) {
      if (spec.path.includes('<')) continue;
      const d = spec.computedDefault ? this.computed(spec) : spec.default;
      if (d === undefined) continue;
      if (spec.repeatable) {
        for (const { item } of elementsOf(items, spec.section)) if (!(spec.key in item)) item[spec.key] = structuredClone(d);
      } else if (!values.has(spec.path)) {
        values.set(spec.path, structuredClone(d));
      }
    }
  }

  private applyOffset(values: Map<string, unknown>, offset: number): void {
    if (offset === 0) return;
    const outside: string[] = [];
    for (const spec of this.catalog.all) {
      if (!spec.port || spec.repeatable) continue;
      const v = values.get(spec.path);
      if (typeof v !== 'number') continue;
      const shifted = v + offset;
      if (shifted > 65535 || shifted < 1) outside.push(`${spec.path} ${v} -> ${shifted}`);
      values.set(spec.path, shifted);
    }
    if (outside.length) {
      this.report('error', 'server.offset', `offset ${offset} moves ${outside.length === 1 ? 'a port' : `${outside.length} ports`} outside 1..65535: ${outside.join(', ')}`);
    }
  }

  /**
   * A required key with no default is checked only where its section is in use: the catalog marks keys of
   * optional integrations (security audit, e-mail, third-party analytics) required for when they are set up.
   * A missing one is an error in a repeatable element (an element without its identity) and a warning in a
   * plain section.
   */
  private checkRequired(values: Map<string, unknown>, items: Map<string, ItemValues[]>): void {
    const sectionsInUse = new Set<string>();
    for (const leaf of this.leaves.values()) if (leaf.spec && !leaf.spec.repeatable) sectionsInUse.add(leaf.spec.section);
    for (const spec of this.catalog.all) {
      if (!spec.required || spec.default !== undefined || spec.computedDefault || spec.path.includes('<')) continue;
      // A required key inside an optional sub-table (virtual_host.https_endpoint) binds only where that
      // sub-table is written.
      const sub = spec.key.includes('.') ? spec.key.slice(0, spec.key.lastIndexOf('.') + 1) : '';
      if (spec.repeatable) {
        for (const { item, path } of elementsOf(items, spec.section)) {
          if (sub && !Object.keys(item).some((k) => k.startsWith(sub) && this.wasWritten(`${path}.${k}`))) continue;
          // Written with a wrong value: that error is already reported.
          if (!(spec.key in item) && !this.wasWritten(`${path}.${spec.key}`)) {
            this.report('error', sub ? `${path}.${sub.slice(0, -1)}` : path, `required key ${spec.key} is missing`);
          }
        }
      } else if (sectionsInUse.has(spec.section) && !values.has(spec.path)) {
        // Plain sections: the catalog marks keys required for set-ups Sluice may not use; say so, do not refuse.
        this.report('warning', spec.path, `the catalog lists this key as required and the [${spec.section}] section does not set it`);
      }
    }
  }

  private wasWritten(concretePath: string): boolean {
    return this.leaves.has(concretePath);
  }

  private report(severity: 'error' | 'warning', path: string, message: string, expected?: string, suggestion?: string, line?: number): void {
    const issue: ConfigIssue = {
      file: this.file,
      line: line ?? this.locator.lineOf(path),
      path,
      message,
      ...(expected ? { expected } : {}),
      ...(suggestion ? { suggestion } : {}),
    };
    const list = severity === 'error' ? this.errors : this.warnings;
    if (list.some((i) => i.path === issue.path && i.message === issue.message)) return;
    list.push(issue);
  }
}

const FAILED = Symbol('failed');

/**
 * The element at a concrete path (`registry_handler[1].nested_property[0]`), created when missing: the top
 * list is keyed by the outer section, nested lists live in their parent element under their relative name.
 */
function elementAt(items: Map<string, ItemValues[]>, path: string): ItemValues {
  const STEP = /^([^[]+)\[(\d+)\](?:\.(.*))?$/;
  let m = STEP.exec(path)!;
  let list = items.get(m[1]!);
  if (!list) { list = []; items.set(m[1]!, list); }
  for (;;) {
    const index = Number(m[2]);
    while (list.length <= index) list.push({});
    const item = list[index]!;
    if (m[3] === undefined) return item;
    m = STEP.exec(m[3])!;
    let sub = item[m[1]!];
    if (!Array.isArray(sub)) { sub = []; item[m[1]!] = sub; }
    list = sub as ItemValues[];
  }
}

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(raw)) return Number(raw);
  return undefined;
}

function show(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
