/**
 * The shape of one deployment.toml key in the catalog (seed Parts A and B). The catalog is data: the loader
 * validates and fills defaults from it, `check-config --print` shows it, and the typed accessors in
 * conf/typed-config.ts are checked against its paths at compile time.
 */

/**
 * How a value is read.
 * - `boolean`: TOML true/false, and also the strings "true"/"false" (the catalog types many flags as string).
 * - `integer`, `float`: TOML numbers, and also quoted numbers ("400").
 * - `duration`: "2m", "15 minutes", "3m", "120000ms", 600000 (ms); always held in milliseconds.
 * - `string`, `string[]`, `integer[]`: as written; a `string[]` also takes one comma-separated string.
 * - `table`: free key-value pairs (for example `[registry_handler.properties]`), kept as written.
 */
export type KeyType = 'string' | 'boolean' | 'integer' | 'float' | 'duration' | 'string[]' | 'integer[]' | 'table';

export interface KeySpecInput {
  /** Default from the catalog (the catalog's value where catalog and sample differ). Absent: "not shown". */
  readonly default?: unknown;
  /** Closed set of values (compared case-sensitively unless `caseInsensitive`). */
  readonly allowed?: readonly string[];
  readonly caseInsensitive?: boolean;
  /** Required by the catalog. The loader reports a missing required key only where the catalog gives no default. */
  readonly required?: boolean;
  /** Secret (password, key): masked in `check-config --print` and never logged. */
  readonly secret?: boolean;
  /** A port that `server.offset` shifts. */
  readonly port?: boolean;
  /** Free text from the catalog: what the key does, sample values. */
  readonly notes?: string;
  /** The key is Sluice's own (not in the seed catalog); documented in docs/configuration.md. */
  readonly sluice?: boolean;
  /** Integer lower bound (inclusive), for keys where a lower value would be nonsense. */
  readonly min?: number;
  /** A default that depends on the machine, computed at load time. */
  readonly computedDefault?: 'cpu_cores';
}

export interface KeySpec<P extends string = string, T extends KeyType = KeyType> extends KeySpecInput {
  /** The section as written in brackets, without brackets: `passthru_http`, `apim.cache.gateway_token`. */
  readonly section: string;
  /** The key inside its section; may hold dots (`http.socket.timeout`, `listener.parameters.port`). */
  readonly key: string;
  /** `section.key`: the path the loader matches user values against. `<name>` segments match any one segment. */
  readonly path: P;
  readonly type: T;
  /** The section is an array of tables (`[[apim.gateway.environment]]`); the path is relative to each element. */
  readonly repeatable: boolean;
}

/** A key in a `[section]`. */
export function key<const S extends string, const K extends string, const T extends KeyType, const D extends KeySpecInput = {}>(
  section: S, k: K, type: T, spec?: D,
): KeySpec<`${S}.${K}`, T> & D & { readonly section: S; readonly repeatable: false } {
  return { ...(spec as D), section, key: k, path: `${section}.${k}` as `${S}.${K}`, type, repeatable: false as const };
}

/** A key in a repeatable `[[section]]`. */
export function itemKey<const S extends string, const K extends string, const T extends KeyType, const D extends KeySpecInput = {}>(
  section: S, k: K, type: T, spec?: D,
): KeySpec<`${S}[].${K}`, T> & D & { readonly section: S; readonly repeatable: true } {
  return { ...(spec as D), section, key: k, path: `${section}[].${k}` as `${S}[].${K}`, type, repeatable: true as const };
}

/** The TypeScript type a key's value has after loading. */
export type ValueOf<T extends KeyType> =
  T extends 'boolean' ? boolean :
  T extends 'integer' | 'float' | 'duration' ? number :
  T extends 'string[]' ? string[] :
  T extends 'integer[]' ? number[] :
  T extends 'table' ? Record<string, unknown> :
  string;
