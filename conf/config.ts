import type { CatalogIndex, RepeatableSection, ScalarPath, ValueAt } from './catalog/index.js';
import type { ConfigIssue } from './errors.js';
import type { HomeLayout } from './home.js';

/** The keys of one element of a repeatable section (`[[apim.gateway.environment]]`), defaults filled. */
export type ItemValues = Record<string, unknown>;

/** One element of a repeatable section and where it is (`registry_handler[1].nested_property[0]`). */
export interface Element {
  readonly item: ItemValues;
  readonly path: string;
}

function isTableValue(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Every element of a repeatable section, in file order. A repeatable section written under an element of
 * another (`[[registry_handler]]` then `[[registry_handler.nested_property]]`) belongs to that element, as
 * TOML nests it: its elements are kept inside their parent's (`item.nested_property`) and collected here from
 * every parent.
 */
export function elementsOf(lists: ReadonlyMap<string, readonly ItemValues[]>, section: string): Element[] {
  const out: Element[] = [];
  (lists.get(section) ?? []).forEach((item, i) => out.push({ item, path: `${section}[${i}]` }));
  for (const [top, list] of lists) {
    if (section.startsWith(`${top}.`)) list.forEach((item, i) => collectNested(item, `${top}[${i}]`, section.slice(top.length + 1), out));
  }
  return out;
}

function collectNested(item: ItemValues, path: string, rest: string, out: Element[]): void {
  const direct = item[rest];
  if (Array.isArray(direct)) {
    direct.forEach((el, j) => { if (isTableValue(el)) out.push({ item: el, path: `${path}.${rest}[${j}]` }); });
    return;
  }
  for (let dot = rest.indexOf('.'); dot > 0; dot = rest.indexOf('.', dot + 1)) {
    const head = rest.slice(0, dot);
    const sub = item[head];
    if (Array.isArray(sub)) sub.forEach((el, j) => { if (isTableValue(el)) collectNested(el, `${path}.${head}[${j}]`, rest.slice(dot + 1), out); });
  }
}

const MASK = '********';

/** Credentials inside a URL (`redis://user:pw@host`, `jdbc:postgresql://h/db?password=pw`), masked. */
function maskUrlCredentials(v: unknown): unknown {
  if (typeof v === 'string') {
    return v
      .replace(/(\/\/[^/?#@\s:]*:)[^/?#@\s]+@/g, `$1${MASK}@`)
      .replace(/([?&;](?:password|pass|pwd)=)[^&;#\s]*/gi, `$1${MASK}`);
  }
  if (Array.isArray(v)) return v.map(maskUrlCredentials);
  return v;
}

/**
 * A loaded, validated deployment.toml: every catalog key with its value or default, ports shifted by
 * server.offset, durations in milliseconds. Immutable; a reload builds a new one.
 *
 * Code reads keys through `get` (paths and value types checked at compile time against the catalog) or,
 * better, through the views in typed-config.ts, which name what a subsystem needs.
 */
export class Config {
  constructor(
    readonly home: HomeLayout,
    readonly file: string,
    private readonly values: ReadonlyMap<string, unknown>,
    private readonly itemLists: ReadonlyMap<string, readonly ItemValues[]>,
    private readonly catalog: CatalogIndex,
    readonly warnings: readonly ConfigIssue[],
    /** Paths (or repeatable section names) the operator wrote, as opposed to defaults. */
    private readonly written: ReadonlySet<string> = new Set(),
  ) {}

  /** Paths read so far: check-config compares them with what the operator wrote, to report unused keys. */
  private readonly read = new Set<string>();

  get<P extends ScalarPath>(path: P): ValueAt<P> {
    this.read.add(path);
    return this.values.get(path) as ValueAt<P>;
  }

  /** Whether the operator wrote the key (as opposed to it holding its default). */
  isWritten(path: ScalarPath | RepeatableSection): boolean {
    return this.written.has(path);
  }

  /** The elements of a repeatable section; for a nested one, the elements under every parent element. */
  items(section: RepeatableSection): readonly ItemValues[] {
    this.read.add(section);
    return elementsOf(this.itemLists, section).map((e) => e.item);
  }

  /** Keys the operator wrote that nothing has read. Meaningful after every view has been built. */
  writtenButUnread(): string[] {
    return [...this.written].filter((p) => !this.read.has(p)).sort();
  }

  /**
   * The effective configuration as nested objects, the way it is written in TOML: sections split on dots,
   * keys kept whole (`passthru_http["http.socket.timeout"]`). Secrets, and passwords inside URLs, are masked
   * unless asked otherwise.
   */
  effective({ maskSecrets = true } = {}): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const place = (section: string): Record<string, unknown> => {
      let node = out;
      for (const seg of section.split('.')) {
        const next = node[seg];
        if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) node[seg] = {};
        node = node[seg] as Record<string, unknown>;
      }
      return node;
    };
    for (const [path, value] of this.values) {
      const spec = this.catalog.exact.get(path);
      if (!spec) continue;
      place(spec.section)[spec.key] = !maskSecrets ? value : spec.secret && value !== undefined ? MASK : maskUrlCredentials(value);
    }
    // Elements of a nested repeatable section sit inside their parent element, as in the file.
    const copy = (section: string, item: ItemValues): ItemValues => {
      const c: ItemValues = {};
      for (const [k, v] of Object.entries(item)) {
        const spec = this.catalog.find(`${section}[].${k}`);
        if (!spec && Array.isArray(v) && v.every(isTableValue)) c[k] = v.map((el) => copy(`${section}.${k}`, el));
        else c[k] = !maskSecrets ? v : spec?.secret ? MASK : maskUrlCredentials(v);
      }
      return c;
    };
    for (const [section, list] of this.itemLists) {
      const dot = section.lastIndexOf('.');
      const parent = dot < 0 ? out : place(section.slice(0, dot));
      parent[section.slice(dot + 1)] = list.map((item) => copy(section, item));
    }
    return out;
  }
}
