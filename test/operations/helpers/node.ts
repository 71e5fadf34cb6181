import { loadConfig } from '../../../conf/loader.js';
import { startNode, type RunningNode } from '../../../engine/runtime/node.js';
import { request as kmRequest, basic, type Res } from '../../fixtures/keymanager-harness.js';
import type { TestHome } from '../../helpers/home.js';

export { basic };

/** Starts a node (in this process) on an existing test home; `t.teardown` stops it. */
export async function startNodeOn(t: { teardown(fn: () => unknown): void }, home: TestHome): Promise<RunningNode> {
  const node = await startNode(loadConfig(home.dir), { handleSignals: false });
  t.teardown(() => node.stop());
  return node;
}

export interface JsonClient {
  readonly base: string;
  get(path: string, headers?: Record<string, string>): Promise<Res>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res>;
  put(path: string, body: unknown): Promise<Res>;
  patch(path: string, body: unknown): Promise<Res>;
  del(path: string): Promise<Res>;
}

/** JSON calls to the admin API with HTTP Basic (admin:admin unless told). */
export function adminClient(base: string, user = 'admin', password = 'admin'): JsonClient {
  const auth = basic(user, password);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> =>
    kmRequest(`${base}${path}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  return {
    base,
    get: (p, h) => call('GET', p, undefined, h),
    post: (p, b, h) => call('POST', p, b, h),
    put: (p, b) => call('PUT', p, b),
    patch: (p, b) => call('PATCH', p, b),
    del: (p) => call('DELETE', p),
  };
}

export const ADMIN = '/api/am/admin/v1';

/** An API body for the admin API with open (auth_type None) resources. */
export function apiBody(name: string, context: string, production: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name, context, version: '1.0.0',
    endpoints: { production },
    resources: [
      { verb: 'GET', uri_template: '/*', auth_type: 'None' },
      { verb: 'POST', uri_template: '/*', auth_type: 'None' },
    ],
    ...extra,
  };
}

export function tokenRequest(httpsBase: string, clientId: string, secret: string): Promise<Res> {
  return kmRequest(`${httpsBase}/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) }, body: 'grant_type=client_credentials',
  });
}

export function introspect(httpsBase: string, token: string): Promise<Res> {
  return kmRequest(`${httpsBase}/oauth2/introspect`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('admin', 'admin') }, body: new URLSearchParams({ token }).toString(),
  });
}
