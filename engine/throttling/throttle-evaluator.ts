import type { Logger } from 'pino';
import type { AuthContext, Call } from '../kernel/call.js';
import type { ApiDefinition, ResourceDefinition } from '../registry/types.js';
import { CompiledPolicies, plainUser, type CCondition, type CPolicy, type CQuota } from './compiled.js';
import { KIND_BANDWIDTH, type SharedCounters } from './counter-table.js';
import { LEVEL_ERROR, type ThrottleLevel } from './errors.js';
import { hashInto, newKeyHash, type KeyHash } from './hash.js';
import { SEP, ThrottleKeys, apiMatches, type ApiInfo } from './throttle-keys.js';
import { parseIp, throttleAddress, type Ip } from './ip.js';
import { LevelCounter } from './level-counter.js';
import type { PolicySnapshot } from './policy-set.js';
import type { ThrottleReporter } from './throttle-reporter.js';

const BANDWIDTH_PROPERTY = 'sluice.throttle.bandwidth';

/**
 * Which throttle levels apply to a call or a WebSocket message on an io thread, with which keys, and the
 * verdict: block conditions, the conditions of advanced policies' groups, custom policies' key templates,
 * and the policy each level resolves to; the counting itself is the level counter's (level-counter.ts),
 * in the node's shared counter table. The phase (throttle-phase.ts) answers the call from the verdict.
 *
 * One call at a time per thread: the verdict and the call's scratch state are fields, so a call allocates
 * no result object.
 */
export class ThrottleEvaluator {
  private policies: CompiledPolicies | null = null;
  private readonly counter: LevelCounter;
  /** The keys and policies of APIs, resources and callers under the current policies (throttle-keys.ts). */
  private keys: ThrottleKeys | null = null;

  // ---- the verdict of the last evaluate when it refused ----
  /** By which level (and its quota; null for a block condition), and the ms to announce in Retry-After. */
  refusedLevel: ThrottleLevel | 'blocked' = 'blocked';
  refusedQuota: CQuota | null = null;
  retryMs = 0;

  // ---- the call being evaluated (one at a time on this thread) ----
  private readonly h: KeyHash = newKeyHash();
  private ip: Ip | null = null;
  private ipText = '';
  private ipDone = false;
  private query: URLSearchParams | null = null;

  constructor(private readonly reporter: ThrottleReporter, private readonly log: Logger) {
    this.counter = new LevelCounter(reporter);
  }

  useCounters(c: SharedCounters): void {
    this.counter.useCounters(c);
  }

  usePolicies(s: PolicySnapshot): void {
    this.policies = new CompiledPolicies(s, this.log);
    this.counter.useRevision(s.revision);
    this.keys = new ThrottleKeys(this.policies);
  }

  /** Both the counters and the policies have arrived. */
  get ready(): boolean {
    return this.policies !== null && this.counter.ready;
  }

  /** Some policy counts bytes: the responses' sizes are charged when calls end (chargeResponse). */
  get hasBandwidth(): boolean {
    return this.policies?.hasBandwidth ?? false;
  }

  get rateLimitHeaders(): boolean {
    return this.policies!.settings.rateLimitHeaders;
  }

  /** The verdict of the last evaluate when it passed: the tightest level's remaining calls (-1: no request limit applied). */
  get bestRemaining(): number {
    return this.counter.bestRemaining;
  }

  get bestLimit(): number {
    return this.counter.bestLimit;
  }

  /** ms to the reset of the tightest level's window. */
  get bestResetMs(): number {
    return this.counter.bestResetMs;
  }

  /**
   * A call, level by level: block conditions, then the API-level and resource-level advanced policies,
   * the subscription policy (burst control, then quota), the application policy, custom policies and the
   * backend's hard limit. True: every level let it through (`bestRemaining`...). False: a level refused
   * (`refusedLevel`, `refusedQuota`, `retryMs`) and what the earlier levels took was given back.
   * Call only when `ready`.
   */
  evaluate(ctx: Call, api: ApiDefinition, resource: ResourceDefinition, now: number): boolean {
    const cp = this.policies!;
    const auth = ctx.auth;
    this.ipDone = false;
    this.query = null;
    this.counter.begin(now, api.id, auth);
    const info = this.keys!.infoOf(api);

    // 1. Block conditions.
    const blocks = cp.blocks;
    if (blocks !== null && this.isBlocked(ctx, cp, info, api)) return false;

    // 2. API-level advanced policy, 3. resource-level.
    if (info.apiPolicy !== null && !this.advanced(ctx, 'api', info.apiPolicy, info.apiKey, info.apiHash)) return false;
    const ri = this.keys!.resourceInfoOf(info, resource);
    if (ri.policy !== null && !this.advanced(ctx, 'resource', ri.policy, ri.key, ri.hash)) return false;

    if (auth !== null) {
      // 4. Subscription: burst control, then the quota.
      const keys = this.keys!.keysOf(auth, info.id);
      const sub = keys.sub;
      if (sub !== null) {
        if (sub.burst !== null && !this.count(ctx, 'burst', sub.name, keys.burstKey, keys.burstHash, sub.burst)) return false;
        if (!this.count(ctx, 'subscription', sub.name, keys.subKey, keys.subHash, sub.quota!)) return false;
      }
      // 5. Application: per application and end user.
      const app = keys.app;
      if (app !== null && !this.count(ctx, 'application', app.name, keys.appKey, keys.appHash, app.quota!)) return false;
    }

    // 6. Custom policies.
    const custom = cp.custom;
    for (let i = 0; i < custom.length; i++) {
      const c = custom[i]!;
      if (c.needsAuth && auth === null) continue;
      const k = this.customKey(ctx, c, api, resource);
      if (!this.count(ctx, 'custom', c.name, k, hashInto(k, this.h), c.quota!)) return false;
    }

    // 7. The backend's hard limit (counted last: only calls that will reach the backend).
    if (info.hard !== null) {
      const k = auth !== null && auth.keyType === 'SANDBOX' ? `${info.hardKey}${SEP}SANDBOX` : info.hardKey;
      if (!this.count(ctx, 'hard', 'backend_max_tps', k, hashInto(k, this.h), info.hard)) return false;
    }
    return true;
  }

  // ---- levels ------------------------------------------------------------------------------------

  /** An advanced policy: the first conditional group that matches, else the policy's own quota. */
  private advanced(ctx: Call, level: ThrottleLevel, p: CPolicy, key: string, h: KeyHash): boolean {
    const groups = p.groups;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (this.matches(ctx, g.conditions)) {
        const k = `${key}${SEP}#${g.index}`;
        return this.count(ctx, level, p.name, k, hashInto(k, this.h), g.quota);
      }
    }
    return this.count(ctx, level, p.name, key, h, p.quota!);
  }

  /**
   * Counts the call at one level. True: it passes this level. False: the level refused the call (the
   * verdict says how) and what earlier levels took was given back.
   */
  private count(ctx: Call, level: ThrottleLevel, policy: string, key: string, h: KeyHash, q: CQuota): boolean {
    const amount = q.kind === KIND_BANDWIDTH ? (ctx.contentLength > 0 ? Math.ceil(ctx.contentLength / q.unit) : 0) : 1;
    const refusedFor = this.counter.acquire(level, policy, key, h, q, amount);
    if (refusedFor >= 0) { this.refuseCall(level, q, refusedFor); return false; }
    if (q.kind === KIND_BANDWIDTH && this.counter.lastSlot >= 0) {
      let list = ctx.properties?.get(BANDWIDTH_PROPERTY) as number[] | undefined;
      if (list === undefined) { list = []; (ctx.properties ??= new Map()).set(BANDWIDTH_PROPERTY, list); }
      list.push(this.counter.lastSlot, q.windowMs, q.unit);
    }
    return true;
  }

  /**
   * A WebSocket message of a session (engine/websocket/shared-message-throttle.ts): counted against the
   * subscription's burst control and quota and the application's policy, in the same counters as calls on
   * that subscription, so every io thread (and, with Redis, every node) sees one limit. False: refused;
   * `refusal` says by which level and for how long.
   */
  countMessage(now: number, auth: AuthContext, apiId: string, refusal: { code: number; retryAfterMs: number }): boolean {
    const cp = this.policies;
    if (cp === null || !this.counter.ready) return true;
    this.counter.begin(now, apiId, auth);
    const keys = this.keys!.keysOf(auth, apiId);
    const sub = keys.sub;
    if (sub !== null) {
      if (sub.burst !== null) {
        const r = this.counter.acquire('burst', sub.name, keys.burstKey, keys.burstHash, sub.burst, 1);
        if (r >= 0) return refuse(refusal, 'burst', r);
      }
      const r = this.counter.acquire('subscription', sub.name, keys.subKey, keys.subHash, sub.quota!, 1);
      if (r >= 0) return refuse(refusal, 'subscription', r);
    }
    const app = keys.app;
    if (app !== null) {
      const r = this.counter.acquire('application', app.name, keys.appKey, keys.appHash, app.quota!, 1);
      if (r >= 0) return refuse(refusal, 'application', r);
    }
    return true;
  }

  /** Whether a session with these policies is throttled at all (neither policy resolves: no). */
  limitsMessages(auth: AuthContext): boolean {
    const cp = this.policies;
    return cp !== null && this.counter.ready && (cp.resolve('subscription', auth.tier) !== null || cp.resolve('application', auth.applicationTier) !== null);
  }

  /** Bandwidth policies: the response's bytes are charged when the call ends. */
  chargeResponse(ctx: Call): void {
    const list = ctx.properties?.get(BANDWIDTH_PROPERTY) as number[] | undefined;
    if (list === undefined || ctx.respBytes <= 0) return;
    this.counter.charge(list, ctx.respBytes, Date.now());
  }

  /** The verdict of a refused call. */
  private refuseCall(level: ThrottleLevel | 'blocked', q: CQuota | null, retryMs: number): void {
    this.refusedLevel = level;
    this.refusedQuota = q;
    this.retryMs = retryMs;
  }

  // ---- block conditions ----------------------------------------------------------------------------

  private isBlocked(ctx: Call, cp: CompiledPolicies, info: ApiInfo, api: ApiDefinition): boolean {
    const b = cp.blocks!;
    const auth = ctx.auth;
    let blocked = info.blocked;
    if (!blocked && auth !== null && b.needsAuth) {
      if (b.users.size > 0 && b.users.has(plainUser(auth.user))) blocked = true;
      else if (b.apps.size > 0 && (b.apps.has(auth.application) || b.apps.has(`${auth.subscriber}:${auth.application}`))) blocked = true;
    }
    if (!blocked && b.ips.length > 0) {
      const ip = this.address(ctx, cp);
      if (ip !== null) for (let i = 0; i < b.ips.length; i++) if (b.ips[i]!.contains(ip)) { blocked = true; break; }
    }
    if (!blocked) {
      for (const inv of b.inverted) {
        let matches: boolean | null = null;
        switch (inv.type) {
          case 'IP':
          case 'IP_RANGE': {
            const ip = this.address(ctx, cp);
            matches = ip === null ? null : inv.range!.contains(ip);
            break;
          }
          case 'USER': matches = auth === null ? null : plainUser(auth.user) === inv.value; break;
          case 'APPLICATION': matches = auth === null ? null : auth.application === inv.value || `${auth.subscriber}:${auth.application}` === inv.value; break;
          case 'API': matches = apiMatches(api, inv.value); break;
        }
        if (matches === false) { blocked = true; break; }
      }
    }
    if (!blocked) return false;
    this.reporter.blocked(info.id, this.ipDone ? this.ipText : undefined, auth?.user, auth?.application);
    this.refuseCall('blocked', null, 0);
    return true;
  }

  /** The address the call is throttled by (ip.ts throttleAddress), once per call. */
  private address(ctx: Call, cp: CompiledPolicies): Ip | null {
    if (this.ipDone) return this.ip;
    this.ipDone = true;
    const peer = parseIp(ctx.clientIp);
    let xff: string | undefined;
    if (!cp.trusted.empty) {
      const h = ctx.reqHeaders;
      for (let i = 0; i < h.length; i += 2) {
        if (h[i] === 'x-forwarded-for') xff = xff === undefined ? h[i + 1] : `${xff},${h[i + 1]}`;
      }
    }
    const ip = throttleAddress(peer, xff, cp.trusted);
    this.ip = ip;
    this.ipText = ip === null ? ctx.clientIp : ip === peer ? ctx.clientIp : ipToText(ip);
    return ip;
  }

  // ---- conditions -------------------------------------------------------------------------------------

  private matches(ctx: Call, conds: readonly CCondition[]): boolean {
    for (let i = 0; i < conds.length; i++) {
      const c = conds[i]!;
      let m: boolean;
      if (c.type === 'ip') {
        const ip = this.address(ctx, this.policies!);
        m = ip !== null && c.range.contains(ip);
      } else if (c.type === 'jwt_claim') {
        m = claimMatches(c.re, ctx.auth?.claims?.[c.name]);
      } else {
        const v = c.type === 'header' ? ctx.header(c.name) : this.queryParam(ctx, c.name);
        m = v !== undefined && testValue(c.re, v);
      }
      if (m === c.invert) return false;
    }
    return true;
  }

  private queryParam(ctx: Call, name: string): string | undefined {
    if (ctx.query === '') return undefined;
    this.query ??= new URLSearchParams(ctx.query);
    return this.query.get(name) ?? undefined;
  }

  private customKey(ctx: Call, p: CPolicy, api: ApiDefinition, res: ResourceDefinition): string {
    let k = `c${SEP}${p.name}${SEP}`;
    const auth = ctx.auth;
    for (const part of p.template!) {
      if (typeof part === 'string') { k += part; continue; }
      switch (part.v) {
        case '$userId': k += auth!.user; break;
        case '$appId': k += auth!.application; break;
        case '$appOwner': k += auth!.subscriber; break;
        case '$keyType': k += auth!.keyType; break;
        case '$apiContext': k += api.context; break;
        case '$apiVersion': k += api.version; break;
        case '$apiName': k += api.name; break;
        case '$resource': k += `${res.verb} ${res.uriTemplate}`; break;
        case '$clientIp': this.address(ctx, this.policies!); k += this.ipText; break;
      }
    }
    return k;
  }
}

function testValue(re: RegExp, v: string): boolean {
  re.lastIndex = 0;
  return re.test(v);
}

/** A claim matches when its text does; an array claim when one of its items does. */
function claimMatches(re: RegExp, v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return testValue(re, v);
  if (typeof v === 'number' || typeof v === 'boolean') return testValue(re, String(v));
  if (Array.isArray(v)) return v.some((x) => claimMatches(re, x));
  return testValue(re, JSON.stringify(v));
}

function ipToText(ip: Ip): string {
  if (ip.v === 4) return `${ip.n >>> 24}.${(ip.n >>> 16) & 255}.${(ip.n >>> 8) & 255}.${ip.n & 255}`;
  const parts: string[] = [];
  for (let i = 7; i >= 0; i--) parts.push(((ip.n >> BigInt(i * 16)) & 0xffffn).toString(16));
  return parts.join(':');
}

function refuse(r: { code: number; retryAfterMs: number }, level: ThrottleLevel, ms: number): false {
  r.code = LEVEL_ERROR[level].code;
  r.retryAfterMs = ms;
  return false;
}
