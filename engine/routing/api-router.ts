import type { ApiDefinition, ResourceDefinition } from '../registry/types.js';

/** One compiled resource: what matched, with path parameters by name. */
export interface ResourceRuntime {
  readonly def: ResourceDefinition;
  readonly verb: string;
  readonly paramNames: readonly string[];
}

/** A node of a resource trie: literal segments, one `{param}` child, and `/*` (rest of the path). */
class TrieNode {
  readonly literal = new Map<string, TrieNode>();
  param: TrieNode | null = null;
  /** Resources whose template ends here, by verb. */
  readonly exact = new Map<string, ResourceRuntime>();
  /** Resources whose template ends with `/*` here, by verb: they match this node and everything below. */
  readonly rest = new Map<string, ResourceRuntime>();
}

export interface ApiRuntime {
  readonly def: ApiDefinition;
  /** `/<context>/<version>`. */
  readonly prefix: string;
  /** Segments in `prefix` (`/trav/v1`: 2): a path that climbed above this many was not this API's to begin with. */
  readonly prefixDepth: number;
  readonly root: TrieNode;
  /** Any resource for this path with another verb (900906 vs 405-like cases, CORS preflight). */
  readonly verbs: ReadonlySet<string>;
  /** The last resource lookup without parameters on this io thread (ApiRouter.findResource). */
  readonly last: { verb: string | null; path: string; resource: ResourceRuntime | null };
}

export interface RouteMatch {
  readonly api: ApiRuntime;
  /** The path after `/<context>/<version>`, always starting with `/`; the query is not part of it. */
  readonly resourcePath: string;
}

function segmentsOf(path: string): string[] {
  const out: string[] = [];
  for (const s of path.split('/')) if (s !== '') out.push(s);
  return out;
}

function compileApi(def: ApiDefinition): ApiRuntime {
  const root = new TrieNode();
  const verbs = new Set<string>();
  for (const r of def.resources) {
    const template = r.uriTemplate.split('?')[0]!;
    const segs = segmentsOf(template);
    const paramNames: string[] = [];
    let node = root;
    let rest = false;
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i]!;
      if (s === '*' && i === segs.length - 1) { rest = true; break; }
      const m = /^\{([^}]+)\}$/.exec(s);
      if (m) {
        paramNames.push(m[1]!);
        node = node.param ??= new TrieNode();
      } else {
        let next = node.literal.get(s);
        if (!next) { next = new TrieNode(); node.literal.set(s, next); }
        node = next;
      }
    }
    const rt: ResourceRuntime = { def: r, verb: r.verb, paramNames };
    const table = rest ? node.rest : node.exact;
    // The first definition of a verb + template wins; later duplicates are ignored (and were logged at load).
    if (!table.has(r.verb)) table.set(r.verb, rt);
    verbs.add(r.verb);
  }
  const prefix = `${def.context}/${def.version}`;
  return { def, prefix, prefixDepth: segmentsOf(prefix).length, root, verbs, last: { verb: null, path: '', resource: null } };
}

/**
 * Routing table of the deployed APIs, rebuilt on every deployment and swapped whole. An API lookup is a
 * handful of Map probes (one per leading path segment, up to the deepest context); a resource lookup walks
 * a trie: literal segments before `{param}` before `/*`, the most specific template winning.
 */
/** Prefix lengths kept in a table; a longer segment run is looked up whatever its length. */
const PREFIX_LENGTHS = 256;

export class ApiRouter {
  private readonly byPrefix = new Map<string, ApiRuntime>();
  /**
   * The lengths of the deployed prefixes: a path's leading segments of other lengths are no API's, and are
   * neither cut nor hashed (a lookup costs a new string and its hash: about 260 instructions each).
   */
  private readonly prefixLengths = new Uint8Array(PREFIX_LENGTHS);
  private readonly maxDepth: number;
  readonly apis: readonly ApiRuntime[];
  /**
   * The last path looked up and what it found (a table is one io thread's): under load the next call is
   * mostly for the same path, often the same string (the front door keeps a repeated head's strings), and
   * a compare is cheaper than cutting the prefix and hashing it.
   */
  private lastPath: string | null = null;
  private lastMatch: RouteMatch | null = null;

  constructor(defs: readonly ApiDefinition[]) {
    let depth = 0;
    const apis: ApiRuntime[] = [];
    for (const def of defs) {
      const api = compileApi(def);
      if (this.byPrefix.has(api.prefix)) continue;
      this.byPrefix.set(api.prefix, api);
      if (api.prefix.length < PREFIX_LENGTHS) this.prefixLengths[api.prefix.length] = 1;
      apis.push(api);
      depth = Math.max(depth, segmentsOf(api.prefix).length);
    }
    this.apis = apis;
    this.maxDepth = depth;
  }

  /** The API whose `/<context>/<version>` is the longest prefix of the path, or null. */
  findApi(path: string): RouteMatch | null {
    if (path === this.lastPath) return this.lastMatch;
    const m = this.lookUp(path);
    this.lastPath = path;
    this.lastMatch = m;
    return m;
  }

  private lookUp(path: string): RouteMatch | null {
    let best: ApiRuntime | null = null;
    let bestEnd = 0;
    let end = 0;
    for (let depth = 0; depth < this.maxDepth; depth++) {
      end = path.indexOf('/', end + 1);
      const length = end < 0 ? path.length : end;
      if (length >= PREFIX_LENGTHS || this.prefixLengths[length] === 1) {
        const hit = this.byPrefix.get(end < 0 ? path : path.slice(0, end));
        if (hit !== undefined) { best = hit; bestEnd = length; }
      }
      if (end < 0) break;
    }
    if (best === null) return null;
    const rest = path.slice(bestEnd);
    return { api: best, resourcePath: rest === '' ? '/' : rest };
  }

  /** The resource of the API for a verb and resource path; HEAD falls back to GET. */
  static findResource(api: ApiRuntime, verb: string, resourcePath: string, params: string[] | null): ResourceRuntime | null {
    // Without parameters to collect, the same verb and path find what they found last time.
    const last = api.last;
    if (params === null && verb === last.verb && resourcePath === last.path) return last.resource;
    let hit = match(api.root, resourcePath, 0, verb, params);
    if (hit === null && verb === 'HEAD') hit = match(api.root, resourcePath, 0, 'GET', params);
    if (params === null) { last.verb = verb; last.path = resourcePath; last.resource = hit; }
    return hit;
  }

  /** Whether any verb has a resource for this path (for CORS preflight). */
  static hasPath(api: ApiRuntime, resourcePath: string): boolean {
    for (const v of api.verbs) if (match(api.root, resourcePath, 0, v, null) !== null) return true;
    return false;
  }
}

/**
 * Walks the trie over the path in place (segments are cut only where a literal or `{param}` child needs
 * one): the common `/*` resource matches without splitting the path at all.
 */
function match(node: TrieNode, path: string, pos: number, verb: string, params: string[] | null): ResourceRuntime | null {
  while (pos < path.length && path.charCodeAt(pos) === SLASH) pos++;
  if (pos >= path.length) {
    const exact = node.exact.get(verb);
    if (exact !== undefined) return exact;
    return node.rest.get(verb) ?? null;
  }
  if (node.literal.size === 0 && node.param === null) return node.rest.get(verb) ?? null;
  let end = path.indexOf('/', pos);
  if (end < 0) end = path.length;
  const seg = path.slice(pos, end);
  const lit = node.literal.get(seg);
  if (lit !== undefined) {
    const r = match(lit, path, end, verb, params);
    if (r !== null) return r;
  }
  if (node.param !== null) {
    const mark = params?.length ?? 0;
    params?.push(decodeSegment(seg));
    const r = match(node.param, path, end, verb, params);
    if (r !== null) return r;
    if (params) params.length = mark;
  }
  return node.rest.get(verb) ?? null;
}

const SLASH = 0x2f;

function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try { return decodeURIComponent(s); } catch { return s; }
}
