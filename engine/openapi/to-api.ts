import type { SpecDocument, LoadedSpec } from './read-spec.js';
import { OpenApiError } from './read-spec.js';

/** What the operator may set on the command line; the rest comes from the document. */
export interface ImportChoices {
  readonly name?: string | undefined;
  readonly context?: string | undefined;
  readonly version?: string | undefined;
  readonly backend?: string | undefined;
  /** auth_type of operations the document leaves without any security requirement. */
  readonly authType?: string | undefined;
}

/** An API file's content (docs/declarative-files.md), in the order it is written. */
export interface ImportedApi {
  name: string;
  context: string;
  version: string;
  type: 'HTTP';
  lifecycle_state: 'PUBLISHED';
  throttling_policy: 'Unlimited';
  description: string;
  endpoints: { production: string };
  resources: { verb: string; uri_template: string; auth_type: string; throttling_policy: string; scopes: string[] }[];
}

export interface ImportResult {
  readonly api: ImportedApi;
  /** What did not map one to one (said on stderr by the CLI). */
  readonly notes: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SECURED = 'Application & Application User';
const AUTH_TYPES = ['None', 'Application', 'Application User', SECURED];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `Swagger Petstore - OpenAPI 3.0` -> `SwaggerPetstoreOpenAPI30`: a name usable in `name:version` ids. */
function apiName(title: string): string {
  const words = title.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, ' ').trim().split(' ').filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function slug(s: string): string {
  return s.normalize('NFKD').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/** A server URL with its {variables} replaced by their defaults (OpenAPI 3 Server Object). */
function serverUrl(server: Obj, where: string): string {
  const url = String(server['url'] ?? '');
  const vars = isObj(server['variables']) ? server['variables'] : {};
  return url.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = vars[name];
    if (!isObj(v) || v['default'] === undefined) throw new OpenApiError(`${where}: server variable {${name}} has no default; give the backend with --backend`);
    return String(v['default']);
  });
}

function backendOf(spec: LoadedSpec, notes: string[]): string | null {
  const d = spec.doc;
  if (spec.dialect === 'openapi-3') {
    const servers = Array.isArray(d['servers']) ? d['servers'].filter(isObj) : [];
    if (servers.length === 0) return null;
    if (servers.length > 1) notes.push(`the document lists ${servers.length} servers; the first is the production endpoint (${String(servers[0]!['url'])})`);
    return serverUrl(servers[0]!, 'servers[0]');
  }
  const host = typeof d['host'] === 'string' ? d['host'] : '';
  if (!host) return null;
  const schemes = Array.isArray(d['schemes']) ? d['schemes'].map(String) : [];
  const scheme = schemes.includes('https') ? 'https' : schemes[0] ?? 'https';
  return `${scheme}://${host}${typeof d['basePath'] === 'string' ? d['basePath'] : ''}`;
}

/** Names of the security schemes whose requirement lists are OAuth2 scopes. */
function scopedSchemes(spec: LoadedSpec): Set<string> {
  const d = spec.doc;
  const defs = spec.dialect === 'openapi-3'
    ? (isObj(d['components']) && isObj(d['components']['securitySchemes']) ? d['components']['securitySchemes'] : {})
    : (isObj(d['securityDefinitions']) ? d['securityDefinitions'] : {});
  const out = new Set<string>();
  for (const [name, s] of Object.entries(defs)) if (isObj(s) && (s['type'] === 'oauth2' || s['type'] === 'openIdConnect')) out.add(name);
  return out;
}

/**
 * `{id}` one segment: Sluice's templates match whole segments, so a segment that only contains a parameter
 * (`{id}.json`, `report-{year}`) becomes that parameter, and a note says so.
 */
function template(p: string, notes: string[]): string {
  const segs = p.split('/').map((s) => {
    const m = /\{([^}]+)\}/.exec(s);
    if (!m || s === `{${m[1]}}`) return s;
    notes.push(`${p}: segment "${s}" imported as {${m[1]}} (templates match whole segments)`);
    return `{${m[1]}}`;
  });
  const out = segs.join('/');
  return out.startsWith('/') ? out : `/${out}`;
}

/**
 * The API file for an OpenAPI 3.x or Swagger 2.0 document: one resource per path and method, the
 * security requirement mapped to auth_type and scopes, the first server (or host + basePath) as the
 * production endpoint. Secure by default: an operation that the document leaves without any security
 * requirement gets "Application & Application User" unless the operator says otherwise (--auth-type);
 * one whose requirement is explicitly empty (`security: []`) is open ("None"), as the document says.
 */
export function toApi(spec: LoadedSpec, choices: ImportChoices): ImportResult {
  const d: SpecDocument = spec.doc;
  const notes: string[] = [];
  const info = isObj(d['info']) ? d['info'] : {};
  const title = typeof info['title'] === 'string' ? info['title'] : '';
  const name = choices.name ?? apiName(title);
  if (!name) throw new OpenApiError(`${spec.file}: info.title is empty; give the API a name with --name`);
  const version = (choices.version ?? String(info['version'] ?? '')).trim().replace(/[\s/?#]+/g, '-');
  if (!version) throw new OpenApiError(`${spec.file}: info.version is empty; give the version with --version`);
  let context = choices.context ?? `/${slug(name)}`;
  if (!context.startsWith('/')) context = `/${context}`;
  context = context.replace(/\/+$/, '');

  let backend = choices.backend ?? backendOf(spec, notes);
  if (backend === null) throw new OpenApiError(`${spec.file}: the document names no server (servers, or host for Swagger 2.0); give the backend with --backend URL`);
  let u: URL;
  try { u = new URL(backend); } catch {
    throw new OpenApiError(`${spec.file}: the server URL "${backend}" is not absolute (a relative server is relative to where the document is served); give the backend with --backend URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OpenApiError(`backend "${backend}": only http and https backends`);
  backend = backend.replace(/\/+$/, '');

  if (choices.authType !== undefined && !AUTH_TYPES.includes(choices.authType)) {
    throw new OpenApiError(`--auth-type "${choices.authType}": one of ${AUTH_TYPES.map((a) => `"${a}"`).join(', ')}`);
  }
  const scoped = scopedSchemes(spec);
  const rootSecurity = Array.isArray(d['security']) ? d['security'] : undefined;
  const paths = isObj(d['paths']) ? d['paths'] : {};
  const resources: ImportedApi['resources'] = [];
  let unsecured = 0;
  for (const [p, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    if (!p.startsWith('/')) { notes.push(`paths: "${p}" does not start with / and is skipped`); continue; }
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      if (method === 'trace') { notes.push(`TRACE ${p}: Sluice does not route TRACE; skipped`); continue; }
      const security = Array.isArray(op['security']) ? op['security'] : rootSecurity;
      let authType: string;
      const scopes = new Set<string>();
      if (security === undefined) {
        authType = choices.authType ?? SECURED;
        unsecured++;
      } else if (security.length === 0 || security.some((req) => isObj(req) && Object.keys(req).length === 0)) {
        // `security: []`, or `{}` among the alternatives: the document says this operation is open.
        authType = 'None';
      } else {
        authType = SECURED;
        for (const req of security) {
          if (!isObj(req)) continue;
          const wanted: string[] = [];
          for (const [scheme, list] of Object.entries(req)) if (scoped.has(scheme) && Array.isArray(list)) wanted.push(...list.map(String));
          if (wanted.length > 1) notes.push(`${method.toUpperCase()} ${p}: the document requires the scopes ${wanted.join(' and ')} together; Sluice checks that the token has one of the resource's scopes`);
          for (const s of wanted) scopes.add(s);
        }
      }
      resources.push({ verb: method.toUpperCase(), uri_template: template(p, notes), auth_type: authType, throttling_policy: 'Unlimited', scopes: [...scopes] });
    }
  }
  if (resources.length === 0) throw new OpenApiError(`${spec.file}: the document has no operations under paths`);
  if (unsecured && choices.authType === undefined) {
    notes.push(`${unsecured} operation(s) have no security requirement in the document: imported as "${SECURED}" (secure by default); --auth-type None opens them`);
  }
  return {
    api: {
      name, context, version, type: 'HTTP', lifecycle_state: 'PUBLISHED', throttling_policy: 'Unlimited',
      description: `${title || name}, imported from ${spec.dialect === 'openapi-3' ? 'OpenAPI' : 'Swagger'} ${spec.specVersion}`,
      endpoints: { production: backend },
      resources,
    },
    notes,
  };
}
