import type { Logger } from 'pino';
import type { BlockCondition, Quota, ThrottleCondition, ThrottlePolicy } from '../registry/types.js';
import { IpRange, IpSet } from './ip.js';
import { KIND_BANDWIDTH, KIND_COUNT_ONLY, KIND_REQUESTS, MAX_VALUE, limitWord } from './counter-table.js';
import type { PolicyLevel, PolicySnapshot, ThrottleSettings } from './policy-set.js';
import { TEMPLATE_VARIABLES } from './policy-file.js';
import { windowMs } from './windows.js';

/** A quota ready for counting. */
export interface CQuota {
  /** In `unit`s: requests, or bytes (KiB for bandwidth quotas above 4 GiB per window). */
  readonly limit: number;
  /** Bytes per counted unit (bandwidth); 1 for requests. */
  readonly unit: number;
  readonly windowMs: number;
  readonly kind: number;
  /** SPAN and LIMIT words of the slot (counter-table.ts). */
  readonly span: bigint;
  readonly limitWord: bigint;
}

export type CCondition =
  | { readonly type: 'header' | 'query' | 'jwt_claim'; readonly name: string; readonly re: RegExp; readonly invert: boolean }
  | { readonly type: 'ip'; readonly range: IpRange; readonly invert: boolean };

export interface CGroup {
  readonly index: number;
  readonly conditions: readonly CCondition[];
  readonly quota: CQuota;
}

export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

export interface CPolicy {
  readonly level: PolicyLevel;
  readonly name: string;
  /** null: unlimited. */
  readonly quota: CQuota | null;
  readonly burst: CQuota | null;
  readonly groups: readonly CGroup[];
  /** Custom policies: literal text and variables, in order. */
  readonly template: readonly (string | { readonly v: TemplateVariable })[] | null;
  /** Custom policies whose key needs the caller (a call without a token is not counted by them). */
  readonly needsAuth: boolean;
}

export function compileQuota(q: Quota, countOnly = false): CQuota {
  const bandwidth = q.bandwidthBytes !== undefined;
  // A counter holds 32 bits: byte quotas above 4 GiB are counted in KiB.
  const unit = bandwidth && q.bandwidthBytes! > MAX_VALUE ? 1024 : 1;
  const limit = Math.min(MAX_VALUE, bandwidth ? Math.ceil(q.bandwidthBytes! / unit) : q.requests!);
  const kind = bandwidth ? KIND_BANDWIDTH : countOnly ? KIND_COUNT_ONLY : KIND_REQUESTS;
  const ms = windowMs(q);
  return { limit, unit, windowMs: ms, kind, span: BigInt(ms), limitWord: limitWord(limit, kind) };
}

function compileCondition(c: ThrottleCondition): CCondition {
  if (c.type === 'ip' || c.type === 'ip_range') return { type: 'ip', range: IpRange.parse(c.value), invert: c.invert === true };
  return { type: c.type, name: c.type === 'header' ? c.name!.toLowerCase() : c.name!, re: new RegExp(`^(?:${c.value})$`), invert: c.invert === true };
}

const AUTH_VARIABLES: ReadonlySet<string> = new Set(['$userId', '$appId', '$appOwner', '$keyType']);

function compileTemplate(t: string): { parts: CPolicy['template']; needsAuth: boolean } {
  const parts: (string | { v: TemplateVariable })[] = [];
  let needsAuth = false;
  let last = 0;
  for (const m of t.matchAll(/\$[A-Za-z]+/g)) {
    if (m.index! > last) parts.push(t.slice(last, m.index));
    parts.push({ v: m[0] as TemplateVariable });
    if (AUTH_VARIABLES.has(m[0])) needsAuth = true;
    last = m.index! + m[0].length;
  }
  if (last < t.length) parts.push(t.slice(last));
  return { parts, needsAuth };
}

function compilePolicy(p: ThrottlePolicy): CPolicy {
  const tpl = p.keyTemplate !== undefined ? compileTemplate(p.keyTemplate) : null;
  return {
    level: p.level,
    name: p.name,
    quota: p.unlimited ? null : compileQuota(p.quota, p.level === 'subscription' && !p.stopOnQuotaReach),
    burst: p.burst && !p.unlimited ? compileQuota({ requests: p.burst.requests, unitTime: 1, timeUnit: p.burst.timeUnit }) : null,
    groups: (p.conditionGroups ?? []).map((g, index) => ({ index, conditions: g.conditions.map(compileCondition), quota: compileQuota(g.quota) })),
    template: tpl?.parts ?? null,
    needsAuth: tpl?.needsAuth ?? false,
  };
}

const CARBON_SUPER = '@carbon.super';
export function plainUser(u: string): string {
  return u.endsWith(CARBON_SUPER) ? u.slice(0, -CARBON_SUPER.length) : u;
}

/** Block conditions in lookup form. */
export class CompiledBlocks {
  readonly users = new Set<string>();
  readonly apps = new Set<string>();
  readonly apis = new Set<string>();
  readonly ips: IpRange[] = [];
  /** Inverted conditions: the call is blocked when it does NOT match. */
  readonly inverted: { readonly type: BlockCondition['type']; readonly value: string; readonly range: IpRange | null }[] = [];
  readonly needsIp: boolean;
  readonly needsAuth: boolean;

  constructor(list: readonly BlockCondition[]) {
    let needsIp = false;
    let needsAuth = false;
    for (const b of list) {
      const isIp = b.type === 'IP' || b.type === 'IP_RANGE';
      if (isIp) needsIp = true;
      if (b.type === 'USER' || b.type === 'APPLICATION') needsAuth = true;
      if (b.invert) {
        this.inverted.push({ type: b.type, value: b.type === 'USER' ? plainUser(b.value) : b.value, range: isIp ? IpRange.parse(b.value) : null });
        continue;
      }
      switch (b.type) {
        case 'USER': this.users.add(plainUser(b.value)); break;
        case 'APPLICATION': this.apps.add(b.value); break;
        case 'API': this.apis.add(b.value.replace(/\/+$/, '')); break;
        default: this.ips.push(IpRange.parse(b.value));
      }
    }
    this.needsIp = needsIp;
    this.needsAuth = needsAuth;
  }

  get size(): number {
    return this.users.size + this.apps.size + this.apis.size + this.ips.length + this.inverted.length;
  }
}

/** An io thread's compiled form of a PolicySnapshot. */
export class CompiledPolicies {
  readonly revision: number;
  readonly settings: ThrottleSettings;
  private readonly levels: Record<PolicyLevel, Map<string, CPolicy | null>>;
  private readonly fallback: Record<PolicyLevel, CPolicy | null>;
  private readonly fallbackName: Record<PolicyLevel, string | null>;
  readonly custom: readonly CPolicy[];
  readonly blocks: CompiledBlocks | null;
  readonly trusted: IpSet;
  /** Some rule reads the client address (IP block conditions, IP conditions, $clientIp). */
  readonly needsIp: boolean;
  readonly hasBandwidth: boolean;
  private readonly warned = new Set<string>();

  constructor(snapshot: PolicySnapshot, private readonly log: Logger) {
    this.revision = snapshot.revision;
    this.settings = snapshot.settings;
    this.levels = { subscription: new Map(), application: new Map(), advanced: new Map(), custom: new Map() };
    const custom: CPolicy[] = [];
    let needsIp = false;
    let hasBandwidth = false;
    for (const p of snapshot.policies) {
      const c = compilePolicy(p);
      this.levels[p.level].set(p.name, c.quota === null ? null : c);
      if (p.level === 'custom') custom.push(c);
      if (c.groups.some((g) => g.conditions.some((x) => x.type === 'ip'))) needsIp = true;
      if (c.template?.some((x) => typeof x !== 'string' && x.v === '$clientIp')) needsIp = true;
      if (c.quota?.kind === KIND_BANDWIDTH || c.groups.some((g) => g.quota.kind === KIND_BANDWIDTH)) hasBandwidth = true;
    }
    this.custom = custom;
    this.fallbackName = { ...snapshot.fallback };
    this.fallback = {
      subscription: this.lookup('subscription', snapshot.fallback.subscription),
      application: this.lookup('application', snapshot.fallback.application),
      advanced: this.lookup('advanced', snapshot.fallback.advanced),
      custom: null,
    };
    const blocks = snapshot.settings.blockConditions && snapshot.blockConditions.length ? new CompiledBlocks(snapshot.blockConditions) : null;
    this.blocks = blocks !== null && blocks.size > 0 ? blocks : null;
    if (this.blocks?.needsIp) needsIp = true;
    this.needsIp = needsIp;
    this.hasBandwidth = hasBandwidth;
    this.trusted = IpSet.parse(snapshot.settings.trustedProxies);
  }

  private lookup(level: PolicyLevel, name: string | null): CPolicy | null {
    if (name === null) return null;
    return this.levels[level].get(name) ?? null;
  }

  /**
   * The policy a call names at a level; null for unlimited. A name that is not deployed gets the level's
   * most restrictive policy, logged once per name.
   */
  resolve(level: PolicyLevel, name: string): CPolicy | null {
    const map = this.levels[level];
    const hit = map.get(name);
    if (hit !== undefined) return hit;
    const fb = this.fallback[level];
    if (!this.warned.has(`${level}:${name}`)) {
      this.warned.add(`${level}:${name}`);
      this.log.warn({ scope: level, policy: name, applied: this.fallbackName[level] },
        `${level} throttling policy "${name}" is not deployed${name === 'Unlimited' ? ' (apim.throttling.enable_unlimited_tier is false)' : ''}: applying the most restrictive ${level} policy ${this.fallbackName[level] ?? '(none)'}`);
    }
    map.set(name, fb);
    return fb;
  }
}
