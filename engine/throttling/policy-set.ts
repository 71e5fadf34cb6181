import type { Logger } from 'pino';
import type { BlockCondition, ThrottlePolicy } from '../registry/types.js';
import type { PolicyFile } from './policy-file.js';
import { quotaRate } from './windows.js';

export type PolicyLevel = ThrottlePolicy['level'];

/** The [apim.throttling] switches the io threads apply (plain data). */
export interface ThrottleSettings {
  readonly blockConditions: boolean;
  readonly headerConditions: boolean;
  readonly queryConditions: boolean;
  readonly jwtClaimConditions: boolean;
  readonly unlimitedTier: boolean;
  readonly trustedProxies: readonly string[];
  readonly rateLimitHeaders: boolean;
  readonly dataPublishing: boolean;
}

/**
 * What the io threads throttle with: every deployed policy (one per level and name), the enabled block
 * conditions and the switches. Rebuilt whole on every change and pushed to the io threads (state key
 * `throttle.policies`); an io thread compiles it and swaps one reference.
 */
export interface PolicySnapshot {
  readonly revision: number;
  readonly policies: readonly ThrottlePolicy[];
  readonly blockConditions: readonly BlockCondition[];
  /** Per level, the policy applied to a name that is not deployed: the most restrictive one. */
  readonly fallback: Readonly<Record<PolicyLevel, string | null>>;
  readonly settings: ThrottleSettings;
}

export const UNLIMITED = 'Unlimited';
const BUILTIN = '(built-in)';

/**
 * The reference system's most restrictive defaults, used as the fallback of a level when no policy of
 * that level is deployed at all (an unknown tier is never unlimited).
 */
const LAST_RESORT: Readonly<Record<PolicyLevel, ThrottlePolicy>> = {
  subscription: { level: 'subscription', name: 'Bronze', quota: { requests: 1000, unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: BUILTIN },
  application: { level: 'application', name: '10PerMin', quota: { requests: 10, unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: BUILTIN },
  advanced: { level: 'advanced', name: '10KPerMin', quota: { requests: 10000, unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: BUILTIN },
  custom: { level: 'custom', name: '(none)', quota: { requests: 1, unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: BUILTIN },
};

const SWITCH: Readonly<Record<string, keyof ThrottleSettings>> = {
  header: 'headerConditions', query: 'queryConditions', jwt_claim: 'jwtClaimConditions',
};
const KEY_NAME: Readonly<Record<string, string>> = {
  header: 'enable_header_based_throttling', query: 'enable_query_param_based_throttling', jwt_claim: 'enable_jwt_claim_based_throttling',
};

/** Drops the conditional groups that use a condition type whose enable_*_based_throttling key is off. */
function activeGroups(p: ThrottlePolicy, settings: ThrottleSettings, log: Logger): ThrottlePolicy {
  if (!p.conditionGroups) return p;
  const kept = p.conditionGroups.filter((g, i) => {
    const off = g.conditions.find((c) => SWITCH[c.type] !== undefined && settings[SWITCH[c.type]!] !== true);
    if (off) log.warn({ file: p.source, line: p.line }, `advanced policy ${p.name}: condition group ${i + 1} uses a ${off.type} condition and apim.throttling.${KEY_NAME[off.type]} is false: the group is ignored`);
    return !off;
  });
  if (kept.length === p.conditionGroups.length) return p;
  const { conditionGroups: _dropped, ...rest } = p;
  return kept.length ? { ...rest, conditionGroups: kept } : rest;
}

function unlimitedOf(level: PolicyLevel): ThrottlePolicy {
  return { level, name: UNLIMITED, unlimited: true, quota: { unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true, source: BUILTIN };
}

/**
 * Merges the policy files (in load order) into a snapshot:
 * - a name defined twice at one level keeps its first definition; the second is logged and ignored;
 * - "Unlimited" exists at every level (built in unless a file defines it) but, with
 *   enable_unlimited_tier = false, not at the subscription and application levels, where an unlimited
 *   policy is then refused (logged) and a call naming it gets the level's most restrictive policy;
 * - block conditions are kept when enable_blacklist_condition is on and the condition is enabled.
 */
export function buildSnapshot(files: readonly PolicyFile[], settings: ThrottleSettings, revision: number, log: Logger): PolicySnapshot {
  const byId = new Map<string, ThrottlePolicy>();
  const blocks: BlockCondition[] = [];
  const tierGated = (level: PolicyLevel): boolean => !settings.unlimitedTier && (level === 'subscription' || level === 'application');
  for (const f of files) {
    for (const p of f.policies) {
      const id = `${p.level}:${p.name}`;
      const first = byId.get(id);
      if (first) {
        log.error({ file: p.source, line: p.line, first: first.source }, `${p.level} policy ${p.name} is already defined in ${first.source}: this definition is ignored`);
        continue;
      }
      if (p.unlimited && tierGated(p.level)) {
        log.warn({ file: p.source, line: p.line }, `${p.level} policy ${p.name} is unlimited and apim.throttling.enable_unlimited_tier is false: not deployed`);
        continue;
      }
      byId.set(id, activeGroups(p, settings, log));
    }
    if (settings.blockConditions) for (const b of f.blockConditions) if (b.enabled) blocks.push(b);
  }
  for (const level of ['subscription', 'application', 'advanced'] as const) {
    const id = `${level}:${UNLIMITED}`;
    if (!byId.has(id) && !tierGated(level)) byId.set(id, unlimitedOf(level));
  }
  const policies = [...byId.values()];
  const fallback = {} as Record<PolicyLevel, string | null>;
  for (const level of ['subscription', 'application', 'advanced', 'custom'] as const) {
    let best: ThrottlePolicy | null = null;
    for (const p of policies) {
      if (p.level !== level || p.unlimited || p.quota.requests === undefined) continue;
      if (best === null || quotaRate(p.quota) < quotaRate(best.quota)) best = p;
    }
    if (best === null && level !== 'custom') {
      best = LAST_RESORT[level];
      if (!byId.has(`${level}:${best.name}`)) policies.push(best);
    }
    fallback[level] = best?.name ?? null;
  }
  return { revision, policies, blockConditions: blocks, fallback, settings };
}
