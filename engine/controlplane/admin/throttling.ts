import crypto from 'node:crypto';
import net from 'node:net';
import type { BlockCondition, Quota, ThrottleCondition, ThrottlePolicy, TimeUnit } from '../../registry/types.js';
import { POLICY_LEVELS, type BlockConditionRecord, type PolicyLevel } from '../../store/index.js';
import { json, empty } from '../../servlet/index.js';
import { ADMIN_SOURCE } from './apis.js';
import { isFileSource, type AdminContext } from './context.js';
import { badRequest, conflict, jsonBody, listOf, notFound, read, type AdminRoutes } from './http.js';

const TIME_UNITS: readonly TimeUnit[] = ['sec', 'min', 'hour', 'day'];
const CONDITION_TYPES: readonly ThrottleCondition['type'][] = ['header', 'query', 'jwt_claim', 'ip', 'ip_range'];
const BLOCK_TYPES: readonly BlockCondition['type'][] = ['USER', 'IP', 'IP_RANGE', 'APPLICATION', 'API'];
const NAME = /^[A-Za-z0-9 ._~-]{1,100}$/;

function timeUnit(o: Record<string, unknown>, where: string, allowed: readonly string[] = TIME_UNITS): TimeUnit {
  const v = (read.string(o, 'time_unit') ?? 'min').toLowerCase();
  const aliases: Record<string, string> = { s: 'sec', second: 'sec', seconds: 'sec', m: 'min', minute: 'min', minutes: 'min', h: 'hour', hours: 'hour', d: 'day', days: 'day' };
  const u = aliases[v] ?? v;
  if (!allowed.includes(u)) throw badRequest(`${where}time_unit must be one of ${allowed.join(', ')}`);
  return u as TimeUnit;
}

function quota(o: Record<string, unknown>, where: string): Quota {
  const requests = read.int(o, 'requests', 1);
  const bandwidth = read.int(o, 'bandwidth', 1);
  if (requests === undefined && bandwidth === undefined) throw badRequest(`${where}requests (or bandwidth, bytes) is required`);
  if (requests !== undefined && bandwidth !== undefined) throw badRequest(`${where}requests and bandwidth: one or the other`);
  return {
    ...(requests !== undefined ? { requests } : {}),
    ...(bandwidth !== undefined ? { bandwidthBytes: bandwidth } : {}),
    unitTime: read.int(o, 'unit_time', 1) ?? 1,
    timeUnit: timeUnit(o, where),
  };
}

/** A policy from its JSON (the policies/*.toml field names). */
export function parsePolicy(level: PolicyLevel, body: Record<string, unknown>): ThrottlePolicy {
  const name = read.string(body, 'name', true)!.trim();
  if (!NAME.test(name)) throw badRequest('name may hold letters, digits, spaces and . _ ~ - (100 at most)');
  const burstObj = read.object(body, 'burst');
  const groups = read.objects(body, 'condition_groups');
  const keyTemplate = read.string(body, 'key_template');
  if (level === 'custom' && !keyTemplate) throw badRequest('a custom policy needs key_template (what the counter is keyed on, e.g. "$userId")');
  if (groups && level !== 'advanced') throw badRequest('condition_groups apply to advanced policies only');
  return {
    level, name,
    quota: quota(body, ''),
    stopOnQuotaReach: read.bool(body, 'stop_on_quota_reach') ?? true,
    ...(burstObj ? { burst: { requests: read.int(burstObj, 'requests', 1, true)!, timeUnit: timeUnit(burstObj, 'burst.', ['sec', 'min']) as 'sec' | 'min' } } : {}),
    ...(groups ? {
      conditionGroups: groups.map((g, i) => ({
        quota: quota(g, `condition_groups[${i}].`),
        conditions: (read.objects(g, 'conditions') ?? []).map((c, j) => {
          const type = read.string(c, 'type', true)!.toLowerCase() as ThrottleCondition['type'];
          if (!CONDITION_TYPES.includes(type)) throw badRequest(`condition_groups[${i}].conditions[${j}].type must be one of ${CONDITION_TYPES.join(', ')}`);
          const cname = read.string(c, 'name');
          return { type, value: read.string(c, 'value', true)!, ...(cname ? { name: cname } : {}), ...(read.bool(c, 'invert') ? { invert: true } : {}) };
        }),
      })),
    } : {}),
    ...(keyTemplate ? { keyTemplate } : {}),
    source: ADMIN_SOURCE,
  };
}

export function policyJson(p: ThrottlePolicy): Record<string, unknown> {
  const q = (x: Quota): Record<string, unknown> => ({
    ...(x.requests !== undefined ? { requests: x.requests } : {}), ...(x.bandwidthBytes !== undefined ? { bandwidth: x.bandwidthBytes } : {}),
    unit_time: x.unitTime, time_unit: x.timeUnit,
  });
  return {
    level: p.level, name: p.name, ...q(p.quota), stop_on_quota_reach: p.stopOnQuotaReach,
    ...(p.burst ? { burst: { requests: p.burst.requests, time_unit: p.burst.timeUnit } } : {}),
    ...(p.conditionGroups ? { condition_groups: p.conditionGroups.map((g) => ({ ...q(g.quota), conditions: g.conditions })) } : {}),
    ...(p.keyTemplate ? { key_template: p.keyTemplate } : {}),
    source: isFileSource(p.source) ? 'file' : p.source,
  };
}

function isIpRange(v: string): boolean {
  const cidr = /^(.+)\/(\d{1,3})$/.exec(v);
  if (cidr) return net.isIP(cidr[1]!) !== 0 && Number(cidr[2]) <= (net.isIP(cidr[1]!) === 4 ? 32 : 128);
  const parts = v.split('-').map((s) => s.trim());
  return parts.length === 2 && net.isIP(parts[0]!) !== 0 && net.isIP(parts[0]!) === net.isIP(parts[1]!);
}

/** A block condition from its JSON: type USER (user name), IP, IP_RANGE (a-b or CIDR), APPLICATION (owner:name or name), API (context). */
export function parseBlockCondition(body: Record<string, unknown>, id: string): BlockConditionRecord {
  const type = read.string(body, 'type', true)!.toUpperCase() as BlockCondition['type'];
  if (!BLOCK_TYPES.includes(type)) throw badRequest(`type must be one of ${BLOCK_TYPES.join(', ')}`);
  const value = read.string(body, 'value', true)!.trim();
  if (type === 'IP' && net.isIP(value) === 0) throw badRequest(`"${value}" is not an IP address`);
  if (type === 'IP_RANGE' && !isIpRange(value)) throw badRequest(`"${value}" is not an IP range (192.0.2.0-192.0.2.255 or 192.0.2.0/24)`);
  if (type === 'API' && !value.startsWith('/')) throw badRequest('an API block condition names the API context, starting with / (/pizzashack/1.0.0)');
  return { id, type, value, enabled: read.bool(body, 'enabled') ?? true, ...(read.bool(body, 'invert') ? { invert: true } : {}), source: ADMIN_SOURCE };
}

export function blockConditionJson(c: BlockConditionRecord): Record<string, unknown> {
  return { id: c.id, type: c.type, value: c.value, enabled: c.enabled, invert: c.invert ?? false, source: isFileSource(c.source) ? 'file' : c.source };
}

/**
 * Throttling policies (subscription, application, advanced, custom) and block conditions. They are kept in
 * the store; the throttling engine applies them on `registry.changed` kind `policies` (on every node,
 * gateway-workers included, through the event hub).
 */
export function mountThrottling(r: AdminRoutes, ctx: AdminContext): void {
  const level = (s: string): PolicyLevel => {
    const l = s.toLowerCase() as PolicyLevel;
    if (!POLICY_LEVELS.includes(l)) throw notFound(`no policy level ${s}; levels: ${POLICY_LEVELS.join(', ')}`);
    return l;
  };
  const ownedPolicy = async (l: PolicyLevel, name: string): Promise<ThrottlePolicy> => {
    const p = await ctx.store.policies.get(l, name);
    if (!p) throw notFound(`no ${l} policy ${name}`);
    if (isFileSource(p.source)) throw conflict(`the ${l} policy ${name} is defined by the file ${p.source}`, 'change it by editing the file');
    return p;
  };

  r.add('GET', '/throttling/policies', async () => json(200, listOf((await ctx.store.policies.list()).map(policyJson))));
  r.add('GET', '/throttling/policies/{level}', async (_req, p) => json(200, listOf((await ctx.store.policies.list(level(p['level']!))).map(policyJson))));
  r.add('POST', '/throttling/policies/{level}', async (req, p) => {
    const l = level(p['level']!);
    const policy = parsePolicy(l, await jsonBody(req));
    if (await ctx.store.policies.get(l, policy.name)) throw conflict(`the ${l} policy ${policy.name} already exists`);
    await ctx.store.policies.put(policy);
    await ctx.changed('policies');
    ctx.log.info({ level: l, policy: policy.name }, 'throttling policy created');
    return json(201, policyJson(policy), { location: `/api/am/admin/v1/throttling/policies/${l}/${encodeURIComponent(policy.name)}` });
  });
  r.add('GET', '/throttling/policies/{level}/{name}', async (_req, p) => {
    const l = level(p['level']!);
    const policy = await ctx.store.policies.get(l, p['name']!);
    if (!policy) throw notFound(`no ${l} policy ${p['name']}`);
    return json(200, policyJson(policy));
  });
  r.add('PUT', '/throttling/policies/{level}/{name}', async (req, p) => {
    const l = level(p['level']!);
    await ownedPolicy(l, p['name']!);
    const policy = parsePolicy(l, { ...(await jsonBody(req)), name: p['name'] });
    await ctx.store.policies.put(policy);
    await ctx.changed('policies');
    return json(200, policyJson(policy));
  });
  r.add('DELETE', '/throttling/policies/{level}/{name}', async (_req, p) => {
    const l = level(p['level']!);
    await ownedPolicy(l, p['name']!);
    await ctx.store.policies.delete(l, p['name']!);
    await ctx.changed('policies');
    return empty(204);
  });

  // Block conditions; `/throttling/deny-policies` is the reference system's name for them.
  for (const base of ['/throttling/block-conditions', '/throttling/deny-policies']) {
    const owned = async (id: string): Promise<BlockConditionRecord> => {
      const c = await ctx.store.policies.getBlockCondition(id);
      if (!c) throw notFound(`no block condition ${id}`);
      if (isFileSource(c.source)) throw conflict(`the block condition ${id} is defined by the file ${c.source}`, 'change it by editing the file');
      return c;
    };
    r.add('GET', base, async () => json(200, listOf((await ctx.store.policies.listBlockConditions()).map(blockConditionJson))));
    r.add('POST', base, async (req) => {
      const c = parseBlockCondition(await jsonBody(req), crypto.randomUUID());
      const same = (await ctx.store.policies.listBlockConditions()).find((x) => x.type === c.type && x.value === c.value);
      if (same) throw conflict(`a block condition ${c.type} ${c.value} already exists (${same.id})`);
      await ctx.store.policies.putBlockCondition(c);
      await ctx.changed('policies');
      ctx.log.info({ id: c.id, type: c.type, value: c.value, enabled: c.enabled }, 'block condition created');
      return json(201, blockConditionJson(c), { location: `/api/am/admin/v1${base}/${c.id}` });
    });
    r.add('GET', `${base}/{id}`, async (_req, p) => {
      const c = await ctx.store.policies.getBlockCondition(p['id']!);
      if (!c) throw notFound(`no block condition ${p['id']}`);
      return json(200, blockConditionJson(c));
    });
    r.add('PUT', `${base}/{id}`, async (req, p) => {
      await owned(p['id']!);
      const c = parseBlockCondition(await jsonBody(req), p['id']!);
      await ctx.store.policies.putBlockCondition(c);
      await ctx.changed('policies');
      return json(200, blockConditionJson(c));
    });
    r.add('PATCH', `${base}/{id}`, async (req, p) => {
      const c = await owned(p['id']!);
      const enabled = read.bool(await jsonBody(req), 'enabled');
      if (enabled === undefined) throw badRequest('PATCH takes { "enabled": true | false }');
      const next = { ...c, enabled };
      await ctx.store.policies.putBlockCondition(next);
      await ctx.changed('policies');
      ctx.log.info({ id: c.id, enabled }, 'block condition switched');
      return json(200, blockConditionJson(next));
    });
    r.add('DELETE', `${base}/{id}`, async (_req, p) => {
      await owned(p['id']!);
      await ctx.store.policies.deleteBlockCondition(p['id']!);
      await ctx.changed('policies');
      return empty(204);
    });
  }
}
