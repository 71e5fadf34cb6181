import fs from 'node:fs';
import os from 'node:os';
import { parse, TomlError } from 'smol-toml';
import { catalogIndex, type CatalogIndex } from './catalog/index.js';
import { Config, type ItemValues } from './config.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { HomeLayout } from './home.js';
import { SourceLocator } from './source-locator.js';
import { closest } from './suggest.js';
import { coerce } from './load/coerce.js';
import { checkCrossKeyRules } from './load/cross-key-rules.js';
import { applyOffset, computedDefault, fillDefaults } from './load/defaults.js';
import { FAILED, isPlainObject, type Leaf } from './load/leaf.js';
import { PlaceholderResolver } from './load/placeholder-resolver.js';
import { checkRequired } from './load/required-keys.js';

export interface LoadOptions {
  /** Unknown keys are errors instead of warnings. */
  readonly strict?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** For the `cpu_cores` computed default; the machine's count when absent. */
  readonly cpuCores?: number;
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

/**
 * One load. The document is walked into leaves (one per value as written) and each is matched to the
 * catalog here; conf/load/ does the steps after that: placeholders, types, defaults and the port offset,
 * required keys, the rules across keys.
 */
class Loader {
  private readonly errors: ConfigIssue[] = [];
  private readonly warnings: ConfigIssue[] = [];
  private readonly locator: SourceLocator;
  private readonly leaves = new Map<string, Leaf>();
  /** Elements of arrays of tables as written (`registry_handler[1].nested_property[0]`), even empty ones. */
  private readonly elements: string[] = [];
  private readonly cpuCores: number;

  constructor(
    private readonly text: string,
    private readonly file: string,
    private readonly layout: HomeLayout,
    private readonly options: LoadOptions,
    private readonly catalog: CatalogIndex,
  ) {
    this.locator = new SourceLocator(text);
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
    const resolver = new PlaceholderResolver({
      leaves: this.leaves, catalog: this.catalog, env: this.options.env ?? process.env, layout: this.layout,
      computed: (spec) => computedDefault(spec, this.cpuCores), report: this.report,
    });
    const values = new Map<string, unknown>();
    const items = new Map<string, ItemValues[]>();
    for (const leaf of this.leaves.values()) {
      if (!leaf.spec) continue;
      const raw = resolver.resolve(leaf.path);
      if (raw === FAILED) continue;
      const v = coerce(leaf, raw, this.report);
      if (v === FAILED) continue;
      if (leaf.spec.repeatable) this.putItem(items, leaf, v);
      else values.set(leaf.spec.path, v);
    }
    // An element that sets nothing is still an element: its required keys are missing.
    for (const path of this.elements) elementAt(items, path);
    fillDefaults(this.catalog, values, items, this.cpuCores);
    const offset = typeof values.get('server.offset') === 'number' ? (values.get('server.offset') as number) : 0;
    applyOffset(this.catalog, values, offset, this.report);
    checkRequired(this.catalog, this.leaves, values, items, this.report);
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

  /** Puts a value into its element; an element nested in another's is kept inside it (see elementsOf). */
  private putItem(items: Map<string, ItemValues[]>, leaf: Leaf, v: unknown): void {
    const end = leaf.path.lastIndexOf(']');
    elementAt(items, leaf.path.slice(0, end + 1))[leaf.path.slice(end + 2)] = v;
  }

  /** One entry per path and message; `line` when the problem is not on the line the path is written on. */
  private readonly report = (severity: 'error' | 'warning', path: string, message: string, expected?: string, suggestion?: string, line?: number): void => {
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
  };
}

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
