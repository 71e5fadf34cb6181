import { parseApiDefinition } from '../../registry/api-file.js';
import { DeclarativeFileError } from '../../registry/toml-file.js';
import type { ApiDefinition, LifecycleState } from '../../registry/types.js';
import { ApiConflictError } from '../../store/index.js';
import { json, empty } from '../../servlet/index.js';
import { isFileSource, type AdminContext } from './context.js';
import { AdminError, badRequest, conflict, jsonBody, listOf, notFound, read, type AdminRoutes } from './http.js';

export const ADMIN_SOURCE = 'admin-api';

/** An API as the admin API shows it: the declarative file's field names, plus id and where it comes from. */
export function apiJson(a: ApiDefinition): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    context: a.context,
    version: a.version,
    type: a.type,
    lifecycle_state: a.lifecycleState,
    throttling_policy: a.throttlingPolicy,
    endpoints: a.endpoints,
    resources: a.resources.map((r) => ({ verb: r.verb, uri_template: r.uriTemplate, auth_type: r.authType, throttling_policy: r.throttlingPolicy, scopes: r.scopes })),
    ...(a.inSequence ? { in_sequence: a.inSequence } : {}),
    ...(a.outSequence ? { out_sequence: a.outSequence } : {}),
    ...(a.faultSequence ? { fault_sequence: a.faultSequence } : {}),
    ...(a.cors ? { cors: { enable: a.cors.enabled, allow_origins: a.cors.allowOrigins, allow_methods: a.cors.allowMethods, allow_headers: a.cors.allowHeaders, allow_credentials: a.cors.allowCredentials } } : {}),
    ...(a.backendMaxTps !== undefined ? { backend_max_tps: a.backendMaxTps } : {}),
    ...(a.maxBufferedRequestBodySize !== undefined ? { max_buffered_request_body_size: a.maxBufferedRequestBodySize } : {}),
    ...(a.maxBufferedResponseBodySize !== undefined ? { max_buffered_response_body_size: a.maxBufferedResponseBodySize } : {}),
    ...(a.clientCertificates ? { client_certificates: a.clientCertificates } : {}),
    source: isFileSource(a.source) ? 'file' : 'store',
    ...(isFileSource(a.source) ? { file: a.source } : {}),
  };
}

/** The body as an API definition, checked with the declarative files' rules (engine/registry/api-file.ts). */
function parseBody(body: Record<string, unknown>, defaultState: LifecycleState): ApiDefinition {
  const doc: Record<string, unknown> = { ...body };
  for (const k of ['id', 'source', 'file']) delete doc[k];
  if (doc['lifecycle_state'] === undefined) doc['lifecycle_state'] = defaultState;
  try {
    return { ...parseApiDefinition(doc, 'request body'), source: ADMIN_SOURCE };
  } catch (err) {
    if (err instanceof DeclarativeFileError) throw badRequest('invalid API definition', err.message.replace(/^request body: /, ''));
    throw err;
  }
}

/**
 * Lifecycle actions (the reference system's publisher lifecycle; the seed shows only BLOCKED):
 *   CREATED --publish--> PUBLISHED, CREATED --prototype--> PROTOTYPED
 *   PUBLISHED --block--> BLOCKED --publish (re-publish)--> PUBLISHED
 *   PUBLISHED | BLOCKED --deprecate--> DEPRECATED --retire--> RETIRED
 *   PUBLISHED | PROTOTYPED --demote--> CREATED
 */
const TRANSITIONS: Record<string, { readonly from: readonly LifecycleState[]; readonly to: LifecycleState }> = {
  publish: { from: ['CREATED', 'PROTOTYPED', 'BLOCKED'], to: 'PUBLISHED' },
  block: { from: ['PUBLISHED'], to: 'BLOCKED' },
  deprecate: { from: ['PUBLISHED', 'BLOCKED'], to: 'DEPRECATED' },
  retire: { from: ['DEPRECATED'], to: 'RETIRED' },
  demote: { from: ['PUBLISHED', 'PROTOTYPED'], to: 'CREATED' },
  prototype: { from: ['CREATED'], to: 'PROTOTYPED' },
};
const ACTION_ALIASES: Record<string, string> = {
  'publish': 'publish', 're-publish': 'publish', 'republish': 'publish', 'block': 'block', 'deprecate': 'deprecate', 'retire': 'retire',
  'demote': 'demote', 'demote to created': 'demote', 'prototype': 'prototype', 'deploy as a prototype': 'prototype',
};

export function mountApis(r: AdminRoutes, ctx: AdminContext): void {
  const find = async (id: string): Promise<ApiDefinition> => {
    const stored = await ctx.store.apis.get(id);
    if (stored) return stored;
    const file = ctx.apis.fileApi(id);
    if (file) return file;
    throw notFound(`no API ${id}`);
  };
  const storedOnly = async (id: string, what: string): Promise<ApiDefinition> => {
    const stored = await ctx.store.apis.get(id);
    if (stored) return stored;
    const file = ctx.apis.fileApi(id);
    if (file) throw conflict(`the API ${id} is defined by the file ${file.source}`, `${what} it by editing the file (the declarative door); the admin API changes the APIs it created`);
    throw notFound(`no API ${id}`);
  };
  const checkPlace = (api: ApiDefinition): void => {
    const file = ctx.apis.fileApi(api.id) ?? ctx.apis.fileApiAt(api.context, api.version);
    if (file) throw conflict(`${file.id} in ${file.source} already serves ${api.id === file.id ? 'this name and version' : `${api.context}/${api.version}`}`);
  };
  const save = async (api: ApiDefinition): Promise<void> => {
    try {
      await ctx.store.apis.put(api);
    } catch (err) {
      if (err instanceof ApiConflictError) throw conflict(err.message);
      throw err;
    }
    await ctx.changed('apis');
  };

  r.add('GET', '/apis', async (req) => {
    const state = req.query.get('lifecycle_state')?.toUpperCase();
    const list = (await ctx.apis.fresh()).filter((a) => !state || a.lifecycleState === state);
    return json(200, listOf(list.map(apiJson)));
  });

  r.add('POST', '/apis', async (req) => {
    const api = parseBody(await jsonBody(req), 'CREATED');
    if (await ctx.store.apis.get(api.id)) throw conflict(`the API ${api.id} already exists`);
    checkPlace(api);
    await save(api);
    ctx.log.info({ api: api.id, state: api.lifecycleState }, 'API created through the admin API');
    return json(201, apiJson(api), { location: `/api/am/admin/v1/apis/${encodeURIComponent(api.id)}` });
  });

  r.add('GET', '/apis/{apiId}', async (_req, p) => json(200, apiJson(await find(p['apiId']!))));

  r.add('PUT', '/apis/{apiId}', async (req, p) => {
    const current = await storedOnly(p['apiId']!, 'change');
    const body = await jsonBody(req);
    const next = parseBody({ name: current.name, version: current.version, ...body }, current.lifecycleState);
    if (next.id !== current.id) throw badRequest(`the body names ${next.id}; the path names ${current.id} (name and version identify an API; create a new version instead)`);
    checkPlace(next);
    await save(next);
    ctx.log.info({ api: next.id }, 'API updated through the admin API');
    return json(200, apiJson(next));
  });

  r.add('DELETE', '/apis/{apiId}', async (_req, p) => {
    const api = await storedOnly(p['apiId']!, 'remove');
    const subscribed = (await ctx.store.applications.list()).filter((a) => a.subscriptions.some((s) => s.api === api.id)).map((a) => a.name);
    if (subscribed.length) throw conflict(`the API ${api.id} has subscriptions`, `applications subscribed: ${subscribed.join(', ')}; remove the subscriptions (or retire the API) first`);
    await ctx.store.apis.delete(api.id);
    await ctx.changed('apis');
    ctx.log.info({ api: api.id }, 'API deleted through the admin API');
    return empty(204);
  });

  r.add('POST', '/apis/{apiId}/lifecycle', async (req, p) => {
    const api = await storedOnly(p['apiId']!, 'change the lifecycle of');
    let action = req.query.get('action') ?? undefined;
    if (action === undefined) action = read.string(await jsonBody(req), 'action', true);
    const asked = action!.trim().toLowerCase();
    // Own entries only: `constructor` or `__proto__` would find what every object inherits.
    const key = Object.hasOwn(ACTION_ALIASES, asked) ? ACTION_ALIASES[asked] : undefined;
    if (!key) throw badRequest(`unknown lifecycle action "${action}"`, `use one of ${Object.keys(TRANSITIONS).join(', ')}`);
    const t = TRANSITIONS[key]!;
    if (!t.from.includes(api.lifecycleState)) {
      throw new AdminError(409, `${key} is not allowed from ${api.lifecycleState}`, `${key} applies to an API in ${t.from.join(' or ')}`);
    }
    const next: ApiDefinition = { ...api, lifecycleState: t.to };
    await save(next);
    ctx.log.info({ api: api.id, from: api.lifecycleState, to: t.to }, 'API lifecycle changed');
    return json(200, { id: api.id, action: key, previous_state: api.lifecycleState, lifecycle_state: t.to });
  });
}
