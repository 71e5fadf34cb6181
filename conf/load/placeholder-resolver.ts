import type { CatalogIndex } from '../catalog/index.js';
import type { KeySpec } from '../catalog/types.js';
import type { HomeLayout } from '../home.js';
import { RUNTIME_PLACEHOLDERS, TOKEN, WHOLE_REF, isRuntimePlaceholder, type RuntimePlaceholder } from '../placeholders.js';
import { closest } from '../suggest.js';
import { coerce } from './coerce.js';
import { FAILED, type Leaf, type Report } from './leaf.js';

export interface PlaceholderResolverOptions {
  /** The values as written, by concrete path. */
  readonly leaves: ReadonlyMap<string, Leaf>;
  readonly catalog: CatalogIndex;
  readonly env: NodeJS.ProcessEnv;
  readonly layout: HomeLayout;
  /** A key's computed default (the `cpu_cores` one), for a reference to a key that is not written. */
  readonly computed: (spec: KeySpec) => unknown;
  readonly report: Report;
}

/**
 * The values as written with their placeholders filled in (conf/placeholders.ts says which there are). Each
 * path is resolved once; a reference to a written key takes its resolved value, to an unwritten one its
 * default; a placeholder that cannot be filled reports on the key that holds it and answers FAILED.
 */
export class PlaceholderResolver {
  private readonly resolved = new Map<string, unknown>();

  constructor(private readonly o: PlaceholderResolverOptions) {}

  resolve(path: string, stack: string[] = []): unknown {
    if (this.resolved.has(path)) return this.resolved.get(path);
    const leaf = this.o.leaves.get(path);
    if (!leaf) return FAILED;
    if (stack.includes(path)) {
      this.o.report('error', stack[0]!, `placeholder cycle: ${[...stack, path].join(' -> ')}`);
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
      this.o.report('error', stack[0]!, '$env{} names no environment variable', '$env{NAME}');
      return FAILED;
    }
    const v = this.o.env[name];
    if (v === undefined) {
      this.o.report('error', stack[0]!, `environment variable ${name} is not set ($env{${name}})`);
      return FAILED;
    }
    return v;
  }

  private lookupRef(name: string, stack: string[]): unknown {
    const { leaves, catalog } = this.o;
    if (leaves.has(name)) {
      const v = this.resolve(name, stack);
      const leaf = leaves.get(name)!;
      return v === FAILED || !leaf.spec ? v : coerce(leaf, v, this.o.report);
    }
    const spec = catalog.exact.get(name);
    if (spec && spec.default !== undefined) return spec.default;
    if (spec && spec.computedDefault) return this.o.computed(spec);
    this.o.report('error', stack[0]!, spec
      ? `$ref{${name}} refers to a key that is not set and has no default`
      : `$ref{${name}} refers to an unknown key`, undefined, spec ? undefined : closest(name, catalog.exact.keys()));
    return FAILED;
  }

  private runtime(name: string, stack: string[]): unknown {
    if (!isRuntimePlaceholder(name)) {
      const known = Object.keys(RUNTIME_PLACEHOLDERS);
      const near = closest(name, known);
      this.o.report('error', stack[0]!, `unknown runtime placeholder \${${name}}`, `one of ${known.map((k) => `\${${k}}`).join(', ')}`, near === undefined ? undefined : `\${${near}}`);
      return FAILED;
    }
    return this.runtimeValue(name, stack);
  }

  private runtimeValue(name: RuntimePlaceholder, stack: string[]): unknown {
    const { leaves, catalog } = this.o;
    const portOf = (path: string): unknown => {
      const base = leaves.has(path) ? this.lookupRef(path, stack) : catalog.exact.get(path)?.default;
      const offset = leaves.has('server.offset') ? this.lookupRef('server.offset', stack) : 0;
      if (base === FAILED || offset === FAILED) return FAILED;
      return Number(base) + Number(offset);
    };
    switch (name) {
      case 'carbon.home': case 'sluice.home': return this.o.layout.root;
      case 'carbon.host': return leaves.has('server.hostname') ? this.lookupRef('server.hostname', stack) : 'localhost';
      case 'carbon.protocol': return 'https';
      case 'carbon.context': return '/';
      case 'carbon.management.port': case 'mgt.transport.https.port': return portOf('transport.https.properties.port');
      case 'mgt.transport.http.port': return portOf('transport.http.properties.port');
      case 'http.nio.port': return portOf('transport.passthru_http.listener.parameters.port');
      case 'https.nio.port': return portOf('transport.passthru_https.listener.parameters.port');
    }
  }
}
