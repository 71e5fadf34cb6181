import type { KeyType } from '../../registry/types.js';
import { json } from '../../servlet/index.js';
import type { AdminContext } from './context.js';
import { AdminError, badRequest, jsonBody, listOf, notFound, read, type AdminRoutes } from './http.js';

const KEY_TYPES: readonly KeyType[] = ['PRODUCTION', 'SANDBOX'];

/**
 * API keys of an application (docs/admin-api.md): generate one (the reference system's
 * `.../api-keys/{keyType}/generate` with `validityPeriod` in seconds, -1 or absent for none), list their ids
 * and states, revoke one by id. Served where the key manager runs (it signs them).
 */
export function mountApiKeys(r: AdminRoutes, ctx: AdminContext): void {
  const issuer = (): NonNullable<AdminContext['apiKeys']> => {
    if (!ctx.apiKeys) throw new AdminError(503, 'API keys are signed by the key manager, which does not run on this node');
    return ctx.apiKeys;
  };
  const keyType = (v: string): KeyType => {
    const k = v.toUpperCase() as KeyType;
    if (!KEY_TYPES.includes(k)) throw badRequest('the key type is PRODUCTION or SANDBOX');
    return k;
  };
  const app = async (name: string) => {
    const a = await ctx.store.applications.get(name);
    if (!a) throw notFound(`no application ${name}`);
    return a;
  };

  r.add('POST', '/applications/{name}/api-keys/{keyType}/generate', async (req, p) => {
    const a = await app(p['name']!);
    const kt = keyType(p['keyType']!);
    const body = req.hasBody ? await jsonBody(req) : {};
    const v = body['validityPeriod'] ?? body['validity_period'];
    const validity = v === undefined || v === null ? -1 : Number(v);
    if (!Number.isInteger(validity) || (validity < 1 && validity !== -1)) throw badRequest('validityPeriod is a whole number of seconds, or -1 for no expiry');
    const issued = await issuer().issue(a, kt, validity);
    return json(200, { keyName: `${a.name}_${kt}`, apikey: issued.apikey, key_id: issued.keyId, validityTime: issued.validityTime }, { 'cache-control': 'no-store' });
  });

  r.add('GET', '/applications/{name}/api-keys', async (_req, p) => {
    const a = await app(p['name']!);
    const list = await ctx.store.apiKeys.listByApplication(a.name);
    return json(200, listOf(list.map((k) => ({ key_id: k.keyId, key_type: k.keyType, state: k.state, issued_at: new Date(k.issuedAt).toISOString(), expires_at: k.expiresAt >= 253402300799000 ? null : new Date(k.expiresAt).toISOString() }))));
  });

  r.add('POST', '/applications/{name}/api-keys/{keyType}/revoke', async (req, p) => {
    const a = await app(p['name']!);
    keyType(p['keyType']!);
    const body = await jsonBody(req);
    let keyId = read.string(body, 'key_id');
    const apikey = read.string(body, 'apikey');
    if (!keyId && apikey) {
      try { keyId = String((JSON.parse(Buffer.from(apikey.split('.')[1] ?? '', 'base64url').toString('utf8')) as { jti?: unknown }).jti ?? ''); } catch { keyId = ''; }
    }
    if (!keyId) throw badRequest('key_id (or the apikey itself) is required');
    if (!(await issuer().revoke(a.name, keyId))) throw notFound(`no active API key ${keyId} of ${a.name}`);
    return json(200, { key_id: keyId, state: 'REVOKED' });
  });
}
