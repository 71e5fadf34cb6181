import { AdminApiError } from '../../../errors/admin-api.js';
import { StoreUnavailableError } from '../../store/index.js';
import { BodyMalformedError, HttpError, UnsupportedMediaTypeError, json, type Reply, type ServletRequest } from '../../servlet/index.js';

/** An admin API error: answered as `{ "code": <status>, "message": ..., "description": ... }`. */
export class AdminError extends Error {
  constructor(readonly status: number, message: string, readonly description = '', readonly headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = 'AdminError';
  }
}

export const badRequest = (message: string, description = ''): AdminError => new AdminError(400, message, description);
export const notFound = (message: string): AdminError => new AdminError(404, message);
export const conflict = (message: string, description = ''): AdminError => new AdminError(409, message, description);

export type Params = Readonly<Record<string, string>>;
export type AdminHandler = (req: ServletRequest, params: Params, user: string) => Promise<Reply> | Reply;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly handler: AdminHandler;
}

/** Routes of the admin API under its base path: `/apis/{apiId}/lifecycle` style templates. */
export class AdminRoutes {
  private readonly routes: Route[] = [];

  add(method: string, template: string, handler: AdminHandler): this {
    const names: string[] = [];
    const re = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, n: string) => { names.push(n); return '([^/]+)'; });
    this.routes.push({ method, pattern: new RegExp(`^${re}/?$`), names, handler });
    return this;
  }

  /** The handler for a method and a path below the base; `allow` when the path exists with other methods. */
  match(method: string, path: string): { handler: AdminHandler; params: Params } | { allow: string[] } | null {
    const allow: string[] = [];
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      if (r.method !== method && !(method === 'HEAD' && r.method === 'GET')) { allow.push(r.method); continue; }
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        const raw = m[i + 1]!;
        try { params[n] = decodeURIComponent(raw); } catch { params[n] = raw; }
      });
      return { handler: r.handler, params };
    }
    return allow.length ? { allow } : null;
  }
}

export function errorReply(err: unknown): Reply | null {
  if (err instanceof AdminError) return json(err.status, { code: err.status, message: err.message, description: err.description || err.message }, err.headers);
  if (err instanceof HttpError) return json(err.status, { code: err.status, message: err.message, description: err.message }, err.headers);
  if (err instanceof StoreUnavailableError) {
    const e = AdminApiError.STORE_UNAVAILABLE;
    return json(e.status, { code: e.code, message: e.message, description: err.message }, e.headers);
  }
  return null;
}

/** The JSON object of the body; 400 / 415 otherwise. */
export async function jsonBody(req: ServletRequest): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await req.json();
  } catch (err) {
    if (err instanceof UnsupportedMediaTypeError) throw new AdminError(415, 'the body must be JSON (Content-Type: application/json)');
    if (err instanceof BodyMalformedError) throw badRequest('malformed JSON body', err.message);
    throw err;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Field readers with messages naming the field. */
export const read = {
  string(o: Record<string, unknown>, k: string, required = false): string | undefined {
    const v = o[k];
    if (v === undefined || v === null) { if (required) throw badRequest(`${k} is required`); return undefined; }
    if (typeof v !== 'string' || (required && v.trim() === '')) throw badRequest(`${k} must be a non-empty string`);
    return v;
  },
  strings(o: Record<string, unknown>, k: string): string[] | undefined {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v.split(/[\s,]+/).filter(Boolean);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    throw badRequest(`${k} must be a list of strings`);
  },
  int(o: Record<string, unknown>, k: string, min: number, required = false): number | undefined {
    const v = o[k];
    if (v === undefined || v === null) { if (required) throw badRequest(`${k} is required`); return undefined; }
    const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min) throw badRequest(`${k} must be a whole number of at least ${min}`);
    return n;
  },
  bool(o: Record<string, unknown>, k: string): boolean | undefined {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    throw badRequest(`${k} must be true or false`);
  },
  object(o: Record<string, unknown>, k: string): Record<string, unknown> | undefined {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${k} must be a JSON object`);
    return v as Record<string, unknown>;
  },
  objects(o: Record<string, unknown>, k: string): Record<string, unknown>[] | undefined {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || !v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) throw badRequest(`${k} must be a list of JSON objects`);
    return v as Record<string, unknown>[];
  },
};

export function listOf<T>(list: readonly T[]): { count: number; list: readonly T[] } {
  return { count: list.length, list };
}
