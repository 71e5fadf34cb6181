import crypto from 'node:crypto';
import { DEFAULT_GRANT_TYPES } from '../../keymanager/application-file.js';
import { hashSecret } from '../../keymanager/secret-hash.js';
import { randomToken } from '../../keymanager/token-crypto.js';
import type { ApplicationDefinition, ApplicationKey, KeyType, SubscriptionDefinition, SubscriptionState, TokenType } from '../../registry/types.js';
import { ApplicationConflictError } from '../../store/index.js';
import { json, empty } from '../../servlet/index.js';
import { ADMIN_SOURCE } from './apis.js';
import { isFileSource, type AdminContext } from './context.js';
import { badRequest, conflict, jsonBody, listOf, notFound, read, type AdminRoutes } from './http.js';

const APP_NAME = /^[A-Za-z0-9 ._~@-]{1,200}$/;
const KEY_TYPES: readonly KeyType[] = ['PRODUCTION', 'SANDBOX'];
const BLOCK_STATES: readonly SubscriptionState[] = ['BLOCKED', 'PROD_ONLY_BLOCKED'];
const SUB_STATES: readonly SubscriptionState[] = ['UNBLOCKED', 'BLOCKED', 'PROD_ONLY_BLOCKED', 'ON_HOLD', 'REJECTED'];

/** An application as the admin API shows it: never a secret (only the creation answer carries them). */
export function applicationJson(a: ApplicationDefinition): Record<string, unknown> {
  return {
    name: a.name,
    owner: a.owner,
    throttling_policy: a.throttlingPolicy,
    token_type: a.tokenType,
    keys: a.keys.map((k) => ({ key_type: k.keyType, client_id: k.clientId, grant_types: k.grantTypes, scopes: k.scopes, ...(k.callbackUrl ? { callback_url: k.callbackUrl } : {}) })),
    subscriptions: a.subscriptions.map((s) => subscriptionJson(a.name, s)),
    source: isFileSource(a.source) ? 'file' : a.source,
  };
}

export function subscriptionJson(application: string, s: SubscriptionDefinition): Record<string, unknown> {
  return { application, api: s.api, throttling_policy: s.throttlingPolicy, state: s.state };
}

/**
 * Applications (their OAuth keys are made here with the key manager's own building blocks: a random
 * client id, a random secret given once, stored as a scrypt hash) and subscriptions. Applications defined
 * by a file (applications/*.toml) are shown but not changed here: the file owns them.
 */
export function mountApplications(r: AdminRoutes, ctx: AdminContext): void {
  const find = async (name: string): Promise<ApplicationDefinition> => {
    const app = await ctx.store.applications.get(name);
    if (!app) throw notFound(`no application ${name}`);
    return app;
  };
  const owned = async (name: string): Promise<ApplicationDefinition> => {
    const app = await find(name);
    if (isFileSource(app.source)) throw conflict(`the application ${name} is defined by the file ${app.source}`, 'change it by editing the file (the declarative door)');
    return app;
  };
  const put = async (app: ApplicationDefinition): Promise<string[]> => {
    try {
      const { removedClientIds } = await ctx.store.applications.put(app, { takeOver: true });
      ctx.clientsChanged();
      await ctx.changed('applications');
      return removedClientIds;
    } catch (err) {
      if (err instanceof ApplicationConflictError) throw conflict(err.message);
      throw err;
    }
  };
  const apiExists = async (id: string): Promise<boolean> => (await ctx.apis.fresh()).some((a) => a.id === id);
  const subscriptionFrom = async (body: Record<string, unknown>): Promise<SubscriptionDefinition> => {
    const api = read.string(body, 'api', true)!;
    if (!(await apiExists(api))) throw notFound(`no API ${api} (name:version)`);
    const tier = read.string(body, 'throttling_policy') ?? read.string(body, 'tier') ?? 'Unlimited';
    const state = (read.string(body, 'state') ?? 'UNBLOCKED').toUpperCase() as SubscriptionState;
    if (!SUB_STATES.includes(state)) throw badRequest(`state must be one of ${SUB_STATES.join(', ')}`);
    return { api, throttlingPolicy: tier, state };
  };

  r.add('GET', '/applications', async () => json(200, listOf((await ctx.store.applications.list()).map(applicationJson))));

  r.add('POST', '/applications', async (req, _p, user) => {
    const body = await jsonBody(req);
    const name = read.string(body, 'name', true)!.trim();
    if (!APP_NAME.test(name)) throw badRequest('name may hold letters, digits, spaces and . _ ~ @ - (200 at most)');
    if (await ctx.store.applications.get(name)) throw conflict(`the application ${name} already exists`);
    const tokenType = (read.string(body, 'token_type') ?? 'JWT').toUpperCase();
    if (tokenType !== 'JWT' && tokenType !== 'OPAQUE') throw badRequest('token_type must be JWT or OPAQUE');
    const wanted = read.objects(body, 'keys') ?? [{ key_type: 'PRODUCTION' }];
    const keys: ApplicationKey[] = [];
    const secrets: { keyType: KeyType; clientId: string; clientSecret: string }[] = [];
    for (const [i, k] of wanted.entries()) {
      const keyType = (read.string(k, 'key_type') ?? 'PRODUCTION').toUpperCase() as KeyType;
      if (!KEY_TYPES.includes(keyType)) throw badRequest(`keys[${i}].key_type must be PRODUCTION or SANDBOX`);
      if (keys.some((x) => x.keyType === keyType)) throw badRequest(`keys: one ${keyType} key per application`);
      const clientId = crypto.randomBytes(18).toString('base64url');
      const clientSecret = randomToken();
      const callbackUrl = read.string(k, 'callback_url');
      keys.push({
        keyType, clientId, clientSecretHash: await hashSecret(clientSecret),
        grantTypes: read.strings(k, 'grant_types') ?? [...DEFAULT_GRANT_TYPES],
        scopes: read.strings(k, 'scopes') ?? [],
        ...(callbackUrl ? { callbackUrl } : {}),
      });
      secrets.push({ keyType, clientId, clientSecret });
    }
    const subscriptions: SubscriptionDefinition[] = [];
    for (const s of read.objects(body, 'subscriptions') ?? []) {
      const sub = await subscriptionFrom(s);
      if (subscriptions.some((x) => x.api === sub.api)) throw badRequest(`subscriptions: ${sub.api} twice`);
      subscriptions.push(sub);
    }
    const app: ApplicationDefinition = {
      name,
      owner: read.string(body, 'owner') ?? user,
      throttlingPolicy: read.string(body, 'throttling_policy') ?? 'Unlimited',
      tokenType: tokenType as TokenType,
      keys, subscriptions, source: ADMIN_SOURCE,
    };
    await put(app);
    ctx.log.info({ application: name, keys: keys.map((k) => k.clientId) }, 'application created through the admin API');
    return json(201, {
      ...applicationJson(app),
      keys: app.keys.map((k) => ({ key_type: k.keyType, client_id: k.clientId, client_secret: secrets.find((s) => s.clientId === k.clientId)!.clientSecret, grant_types: k.grantTypes, scopes: k.scopes })),
    }, { location: `/api/am/admin/v1/applications/${encodeURIComponent(name)}`, 'cache-control': 'no-store' });
  });

  r.add('GET', '/applications/{name}', async (_req, p) => json(200, applicationJson(await find(p['name']!))));

  r.add('PUT', '/applications/{name}', async (req, p) => {
    const app = await owned(p['name']!);
    const body = await jsonBody(req);
    const tokenType = (read.string(body, 'token_type') ?? app.tokenType).toUpperCase();
    if (tokenType !== 'JWT' && tokenType !== 'OPAQUE') throw badRequest('token_type must be JWT or OPAQUE');
    const next: ApplicationDefinition = {
      ...app,
      owner: read.string(body, 'owner') ?? app.owner,
      throttlingPolicy: read.string(body, 'throttling_policy') ?? app.throttlingPolicy,
      tokenType: tokenType as TokenType,
    };
    await put(next);
    return json(200, applicationJson(next));
  });

  r.add('DELETE', '/applications/{name}', async (_req, p) => {
    const app = await owned(p['name']!);
    const clientIds = await ctx.store.applications.delete(app.name);
    ctx.clientsChanged();
    const revoked = await ctx.revokeClients(clientIds ?? []);
    await ctx.apiKeys?.revokeApplication(app.name);
    await ctx.changed('applications');
    ctx.log.info({ application: app.name, revokedTokens: revoked }, 'application deleted through the admin API; its tokens are revoked');
    return empty(204);
  });

  // ---- subscriptions

  r.add('GET', '/subscriptions', async (req) => {
    const appName = req.query.get('application');
    const api = req.query.get('api');
    const out: Record<string, unknown>[] = [];
    for (const a of await ctx.store.applications.list()) {
      if (appName && a.name !== appName) continue;
      for (const s of a.subscriptions) if (!api || s.api === api) out.push(subscriptionJson(a.name, s));
    }
    return json(200, listOf(out));
  });

  const subscribe = async (appName: string, body: Record<string, unknown>) => {
    const app = await owned(appName);
    const sub = await subscriptionFrom(body);
    if (app.subscriptions.some((s) => s.api === sub.api)) throw conflict(`${app.name} is already subscribed to ${sub.api}`);
    await put({ ...app, subscriptions: [...app.subscriptions, sub] });
    ctx.log.info({ application: app.name, api: sub.api, tier: sub.throttlingPolicy }, 'subscription created');
    return json(201, subscriptionJson(app.name, sub), { location: `/api/am/admin/v1/applications/${encodeURIComponent(app.name)}/subscriptions/${encodeURIComponent(sub.api)}` });
  };
  r.add('POST', '/subscriptions', async (req) => {
    const body = await jsonBody(req);
    return subscribe(read.string(body, 'application', true)!, body);
  });
  r.add('GET', '/applications/{name}/subscriptions', async (_req, p) => {
    const app = await find(p['name']!);
    return json(200, listOf(app.subscriptions.map((s) => subscriptionJson(app.name, s))));
  });
  r.add('POST', '/applications/{name}/subscriptions', async (req, p) => subscribe(p['name']!, await jsonBody(req)));

  const existing = async (appName: string, api: string, change: boolean) => {
    const app = change ? await owned(appName) : await find(appName);
    const sub = app.subscriptions.find((s) => s.api === api);
    if (!sub) throw notFound(`${app.name} has no subscription to ${api}`);
    return { app, sub };
  };
  const setState = async (appName: string, api: string, state: SubscriptionState) => {
    const { app, sub } = await existing(appName, api, true);
    const next = { ...sub, state };
    await put({ ...app, subscriptions: app.subscriptions.map((s) => (s.api === api ? next : s)) });
    ctx.log.info({ application: app.name, api, from: sub.state, to: state }, 'subscription state changed');
    return json(200, subscriptionJson(app.name, next));
  };
  r.add('GET', '/applications/{name}/subscriptions/{apiId}', async (_req, p) => {
    const { app, sub } = await existing(p['name']!, p['apiId']!, false);
    return json(200, subscriptionJson(app.name, sub));
  });
  r.add('PUT', '/applications/{name}/subscriptions/{apiId}', async (req, p) => {
    const { app, sub } = await existing(p['name']!, p['apiId']!, true);
    const body = await jsonBody(req);
    const next = { ...sub, throttlingPolicy: read.string(body, 'throttling_policy') ?? read.string(body, 'tier') ?? sub.throttlingPolicy };
    await put({ ...app, subscriptions: app.subscriptions.map((s) => (s.api === sub.api ? next : s)) });
    return json(200, subscriptionJson(app.name, next));
  });
  r.add('POST', '/applications/{name}/subscriptions/{apiId}/block', async (req, p) => {
    const state = ((req.hasBody ? read.string(await jsonBody(req), 'state') : undefined) ?? req.query.get('state') ?? 'BLOCKED').toUpperCase() as SubscriptionState;
    if (!BLOCK_STATES.includes(state)) throw badRequest(`state must be ${BLOCK_STATES.join(' or ')}`);
    return setState(p['name']!, p['apiId']!, state);
  });
  r.add('POST', '/applications/{name}/subscriptions/{apiId}/unblock', async (_req, p) => setState(p['name']!, p['apiId']!, 'UNBLOCKED'));
  r.add('DELETE', '/applications/{name}/subscriptions/{apiId}', async (_req, p) => {
    const { app, sub } = await existing(p['name']!, p['apiId']!, true);
    await put({ ...app, subscriptions: app.subscriptions.filter((s) => s !== sub) });
    ctx.log.info({ application: app.name, api: sub.api }, 'subscription removed');
    return empty(204);
  });
}
