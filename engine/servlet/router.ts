import type { ServletRequest } from './request.js';
import type { Reply } from './reply.js';

export type Handler = (req: ServletRequest) => Reply | Promise<Reply>;

export interface RouteOptions {
  /** Largest body this route reads, bytes; the server's limit when absent. */
  readonly maxBodySize?: number;
}

export interface Route {
  readonly method: string;
  /** Exact path, or a prefix when written `/base/*` (matches `/base` and everything below it). */
  readonly path: string;
  readonly handler: Handler;
  readonly options: RouteOptions;
}

export type Match =
  | { readonly kind: 'found'; readonly route: Route }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] };

/**
 * Method + path routing: exact paths first, then the longest matching prefix. `*` as the method matches
 * any method; HEAD falls back to GET. Routes can be added while the server runs (other parts mount theirs).
 */
export class Router {
  private readonly exact = new Map<string, Map<string, Route>>();
  private readonly prefixes: { prefix: string; byMethod: Map<string, Route> }[] = [];

  add(method: string, path: string, handler: Handler, options: RouteOptions = {}): void {
    const m = method.toUpperCase();
    if (!path.startsWith('/')) throw new Error(`route path must start with "/": ${path}`);
    const route: Route = { method: m, path, handler, options };
    let byMethod: Map<string, Route>;
    if (path.endsWith('/*')) {
      const prefix = path.slice(0, -2);
      let entry = this.prefixes.find((p) => p.prefix === prefix);
      if (!entry) {
        entry = { prefix, byMethod: new Map() };
        this.prefixes.push(entry);
        this.prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
      }
      byMethod = entry.byMethod;
    } else {
      byMethod = this.exact.get(path) ?? new Map<string, Route>();
      this.exact.set(path, byMethod);
    }
    if (byMethod.has(m)) throw new Error(`route ${m} ${path} is already defined`);
    byMethod.set(m, route);
  }

  match(method: string, path: string): Match {
    const exact = this.exact.get(path);
    if (exact) return pick(exact, method);
    for (const p of this.prefixes) {
      if (path === p.prefix || path.startsWith(p.prefix + '/') || p.prefix === '') return pick(p.byMethod, method);
    }
    return { kind: 'not_found' };
  }
}

function pick(byMethod: Map<string, Route>, method: string): Match {
  const route = byMethod.get(method) ?? byMethod.get('*') ?? (method === 'HEAD' ? byMethod.get('GET') : undefined);
  if (route) return { kind: 'found', route };
  const allow = [...byMethod.keys()].filter((m) => m !== '*');
  if (allow.includes('GET')) allow.push('HEAD');
  return { kind: 'method_not_allowed', allow };
}
