import type { CatalogIndex, RepeatableSection, ScalarPath, ValueAt } from './catalog/index.js';
import type { ConfigIssue } from './errors.js';
import type { HomeLayout } from './home.js';

/** The keys of one element of a repeatable section (`[[apim.gateway.environment]]`), defaults filled. */
export type ItemValues = Record<string, unknown>;

const MASK = '********';

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

  items(section: RepeatableSection): readonly ItemValues[] {
    this.read.add(section);
    return this.itemLists.get(section) ?? [];
  }

  /** Keys the operator wrote that nothing has read. Meaningful after every view has been built. */
  writtenButUnread(): string[] {
    return [...this.written].filter((p) => !this.read.has(p)).sort();
  }

  /**
   * The effective configuration as nested objects, the way it is written in TOML: sections split on dots,
   * keys kept whole (`passthru_http["http.socket.timeout"]`). Secrets are masked unless asked otherwise.
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
      place(spec.section)[spec.key] = maskSecrets && spec.secret && value !== undefined ? MASK : value;
    }
    for (const [section, list] of this.itemLists) {
      const dot = section.lastIndexOf('.');
      const parent = dot < 0 ? out : place(section.slice(0, dot));
      parent[section.slice(dot + 1)] = list.map((item) => {
        const copy: ItemValues = {};
        for (const [k, v] of Object.entries(item)) {
          const spec = this.catalog.exact.get(`${section}[].${k}`);
          copy[k] = maskSecrets && spec?.secret ? MASK : v;
        }
        return copy;
      });
    }
    return out;
  }
}
