import { RepeatedWarnings } from '../log/repeated-warnings.js';
import diagnostics from 'node:diagnostics_channel';
import type { Logger } from 'pino';
import type { AuthContext, Call } from '../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../kernel/phase.js';
import type { SharedState } from '../kernel/shared-state.js';
import { callChannel } from '../kernel/call-events.js';
import type { ApiDefinition, ResourceDefinition } from '../registry/types.js';
import { CompiledPolicies, plainUser, type CCondition, type CPolicy, type CQuota } from './compiled.js';
import { CounterTable, KIND_BANDWIDTH, KIND_COUNT_ONLY, KIND_REQUESTS, MODE_CLUSTER, NOTE_OVER_QUOTA, NOTE_THROTTLED } from './counter-table.js';
import { LEVEL_ERROR, type ThrottleLevel } from './errors.js';
import { hashInto, hashOf, type KeyHash } from './hash.js';
import { parseIp, throttleAddress, type Ip } from './ip.js';
import { STATE_COUNTERS, STATE_POLICIES, type CountersState, type DecisionFacts, type IoThrottleMessage } from './messages.js';
import type { PolicySnapshot } from './policy-set.js';

/** Separates the parts of a throttle key (a character no name or address holds). */
const SEP = '\u001f';
const MAX_LEVELS = 16;
const BANDWIDTH_PROPERTY = 'sluice.throttle.bandwidth';

/** Per API definition (cached until the API or the policies change): its keys and policies. */
interface ApiInfo {
  readonly id: string;
  readonly apiPolicy: CPolicy | null;
  readonly apiKey: string;
  readonly apiHash: KeyHash;
  readonly hardKey: string;
  readonly hard: CQuota | null;
  readonly blocked: boolean;
  readonly resources: Map<ResourceDefinition, ResourceInfo>;
}

interface ResourceInfo {
  readonly policy: CPolicy | null;
  readonly key: string;
  readonly hash: KeyHash;
  readonly label: string;
}

/**
 * The throttle phase (after authorize, before the backend JWT): block conditions, then the API-level and
 * resource-level advanced policies, the subscription policy (burst control, then quota), the application
 * policy, custom policies and the backend's hard limit. Each level counts the call in its window with one
 * compare-and-swap in the node's shared counter table; a level that refuses gives back what the earlier
 * levels took, answers through _throttle_out_handler_ with Retry-After, and reports the decision once per
 * key and window. Calls that pass carry X-RateLimit-* headers of the tightest level.
 *
 * Without the throttling extension's state (a gateway started without it) the phase is not in the list.
 */
export class ThrottlePhase implements GatewayPhase {
  readonly name = 'throttle';
  private policies: CompiledPolicies | null = null;
  private table: CounterTable | null = null;
  private channel: BroadcastChannel | null = null;
  private apiInfo = new WeakMap<ApiDefinition, ApiInfo>();
  private pendingKeys: (number | string)[] = [];
  private flushScheduled = false;
  /** The per-call warnings below, one line a minute per kind with the count of the others. */
  private readonly warnings: RepeatedWarnings;
  private bandwidthSubscribed = false;
  /** Per slot, the policy revision this thread last described it under (SPAN, LIMIT words). */
  private described = new Int32Array(0);
  private revision = 0;

  // ---- the call being evaluated (one at a time on this thread) ----
  private readonly h: KeyHash = { hi: 0, lo: 0 };
  private now = 0;
  private ip: Ip | null = null;
  private ipText = '';
  private ipDone = false;
  private query: URLSearchParams | null = null;
  private taken = 0;
  private readonly takenSlot = new Int32Array(MAX_LEVELS);
  private readonly takenWin = new Float64Array(MAX_LEVELS);
  private readonly takenAmount = new Float64Array(MAX_LEVELS);
  private bestRemaining = -1;
  private bestLimit = 0;
  private bestResetMs = 0;
  /** The slot the last acquireLevel counted in (-1: the table was full). */
  private lastSlot = -1;
  /** Who a decision report names: the call's (or the WebSocket message's) API and caller. */
  private decisionApi = '';
  private decisionAuth: AuthContext | null = null;

  constructor(state: SharedState, private readonly log: Logger) {
    this.warnings = new RepeatedWarnings(log, { windowMs: 60_000 });
    state.on(STATE_COUNTERS, (v) => this.useCounters(v as CountersState));
    state.on(STATE_POLICIES, (v) => this.usePolicies(v as PolicySnapshot));
  }

  /** Whether the node runs throttling (its state keys were in the io thread's init). */
  static enabled(state: SharedState): boolean {
    return state.get(STATE_COUNTERS) !== undefined;
  }

  private useCounters(c: CountersState): void {
    this.table = new CounterTable(c);
    this.described = new Int32Array(c.slots).fill(-1);
    this.channel?.close();
    this.channel = new BroadcastChannel(c.channel);
    (this.channel as unknown as { unref?: () => void }).unref?.();
  }

  private usePolicies(s: PolicySnapshot): void {
    this.policies = new CompiledPolicies(s, this.log);
    this.revision = s.revision;
    this.apiInfo = new WeakMap();
    if (this.policies.hasBandwidth && !this.bandwidthSubscribed) {
      diagnostics.subscribe(callChannel.name, this.onCallDone);
      this.bandwidthSubscribed = true;
    } else if (!this.policies.hasBandwidth && this.bandwidthSubscribed) {
      diagnostics.unsubscribe(callChannel.name, this.onCallDone);
      this.bandwidthSubscribed = false;
    }
  }

  onRequest(ctx: Call): PhaseResult {
    const cp = this.policies;
    const table = this.table;
    const api = ctx.api;
    const resource = ctx.resource;
    if (cp === null || table === null || api === null || resource === null) return PhaseResult.CONTINUE;
    this.now = Date.now();
    this.ipDone = false;
    this.query = null;
    this.taken = 0;
    this.bestRemaining = -1;

    const info = this.infoOf(api.def, cp);
    const auth = ctx.auth;
    this.decisionApi = api.def.id;
    this.decisionAuth = auth;

    // 1. Block conditions.
    const blocks = cp.blocks;
    if (blocks !== null && this.isBlocked(ctx, cp, info)) return PhaseResult.STOP;

    // 2. API-level advanced policy, 3. resource-level.
    if (info.apiPolicy !== null && !this.advanced(ctx, 'api', info.apiPolicy, info.apiKey, info.apiHash)) return PhaseResult.STOP;
    let ri = info.resources.get(resource.def);
    if (ri === undefined) { ri = this.resourceInfo(info, resource.def, cp); info.resources.set(resource.def, ri); }
    if (ri.policy !== null && !this.advanced(ctx, 'resource', ri.policy, ri.key, ri.hash)) return PhaseResult.STOP;

    if (auth !== null) {
      // 4. Subscription: burst control, then the quota.
      const sub = cp.resolve('subscription', auth.tier);
      if (sub !== null) {
        const subKey = `${auth.application}${SEP}${info.id}${SEP}${auth.tier}`;
        if (sub.burst !== null) {
          const k = `b${SEP}${subKey}`;
          if (!this.count(ctx, 'burst', sub.name, k, hashInto(k, this.h), sub.burst)) return PhaseResult.STOP;
        }
        const k = `s${SEP}${subKey}`;
        if (!this.count(ctx, 'subscription', sub.name, k, hashInto(k, this.h), sub.quota!)) return PhaseResult.STOP;
      }
      // 5. Application: per application and end user.
      const app = cp.resolve('application', auth.applicationTier);
      if (app !== null) {
        const k = `p${SEP}${auth.application}${SEP}${auth.user}${SEP}${auth.applicationTier}`;
        if (!this.count(ctx, 'application', app.name, k, hashInto(k, this.h), app.quota!)) return PhaseResult.STOP;
      }
    }

    // 6. Custom policies.
    const custom = cp.custom;
    for (let i = 0; i < custom.length; i++) {
      const c = custom[i]!;
      if (c.needsAuth && auth === null) continue;
      const k = this.customKey(ctx, c, api.def, resource.def);
      if (!this.count(ctx, 'custom', c.name, k, hashInto(k, this.h), c.quota!)) return PhaseResult.STOP;
    }

    // 7. The backend's hard limit (counted last: only calls that will reach the backend).
    if (info.hard !== null) {
      const k = auth !== null && auth.keyType === 'SANDBOX' ? `${info.hardKey}${SEP}SANDBOX` : info.hardKey;
      if (!this.count(ctx, 'hard', 'backend_max_tps', k, hashInto(k, this.h), info.hard)) return PhaseResult.STOP;
    }

    if (this.bestRemaining >= 0 && cp.settings.rateLimitHeaders) {
      ctx.addResponseHeaders(
        'X-RateLimit-Limit', String(this.bestLimit),
        'X-RateLimit-Remaining', String(this.bestRemaining),
        'X-RateLimit-Reset', String(Math.max(1, Math.ceil(this.bestResetMs / 1000))),
      );
    }
    return PhaseResult.CONTINUE;
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
   * Counts the call at one level. True: it passes this level. False: the call was answered (throttled)
   * and what earlier levels took was given back.
   */
  private count(ctx: Call, level: ThrottleLevel, policy: string, key: string, h: KeyHash, q: CQuota): boolean {
    const amount = q.kind === KIND_BANDWIDTH ? (ctx.contentLength > 0 ? Math.ceil(ctx.contentLength / q.unit) : 0) : 1;
    const refusedFor = this.acquireLevel(level, policy, key, h, q, amount);
    if (refusedFor >= 0) { this.throttleOut(ctx, level, q, refusedFor); return false; }
    if (q.kind === KIND_BANDWIDTH && this.lastSlot >= 0) {
      let list = ctx.properties?.get(BANDWIDTH_PROPERTY) as number[] | undefined;
      if (list === undefined) { list = []; (ctx.properties ??= new Map()).set(BANDWIDTH_PROPERTY, list); }
      list.push(this.lastSlot, q.windowMs, q.unit);
    }
    return true;
  }

  /**
   * One level's count in the shared table, for a call or a WebSocket message (decisions name
   * `decisionApi` / `decisionAuth`). Returns PASSED, or the ms to announce in Retry-After when the level
   * refused (what the earlier levels took has been given back then).
   */
  private acquireLevel(level: ThrottleLevel, policy: string, key: string, h: KeyHash, q: CQuota, amount: number): number {
    const table = this.table!;
    const slot = table.slotOf(h);
    this.lastSlot = slot;
    if (slot < 0) { this.tableFull(); return PASSED; }
    if (table.claimed) this.announce(slot, key);
    // The slot's window length and limit, for the main thread: on claim and after a policy change.
    if (table.claimed || this.described[slot] !== this.revision) {
      table.describe(slot, q.span, q.limitWord);
      this.described[slot] = this.revision;
    }
    const winNo = Math.floor(this.now / q.windowMs);
    const resetMs = (winNo + 1) * q.windowMs - this.now;
    let ok = true;
    let count: number;
    if (q.kind === KIND_COUNT_ONLY) {
      count = table.add(slot, winNo, 1);
      if (count > q.limit && table.note(slot, winNo, NOTE_OVER_QUOTA)) this.decide(level, policy, key, q, winNo, false);
    } else {
      ok = q.kind === KIND_BANDWIDTH
        ? table.acquireUnder(slot, winNo, table.allowance(slot, winNo, q.limit, q.kind), amount)
        : table.acquire(slot, winNo, table.allowance(slot, winNo, q.limit, q.kind), 1);
      count = table.count;
      if (ok) this.take(slot, winNo, amount);
    }
    const g = table.globalIn(slot, winNo);
    const used = g > count ? g : count;
    if (!ok) {
      this.giveBack();
      if (q.kind === KIND_REQUESTS && count < q.limit && g < q.limit && table.mode === MODE_CLUSTER) {
        // Not the limit: this node's leases ran out before the next sync. Ask for more now; retry soon.
        if (table.raiseHungry()) this.post({ t: 'hungry' });
        return 1000;
      }
      if (table.note(slot, winNo, NOTE_THROTTLED)) this.decide(level, policy, key, q, winNo, true);
      return resetMs;
    }
    if (q.kind !== KIND_BANDWIDTH) {
      const remaining = used >= q.limit ? 0 : q.limit - used;
      if (this.bestRemaining < 0 || remaining < this.bestRemaining || (remaining === this.bestRemaining && resetMs < this.bestResetMs)) {
        this.bestRemaining = remaining;
        this.bestLimit = q.limit;
        this.bestResetMs = resetMs;
      }
    }
    return PASSED;
  }

  /**
   * A WebSocket message of a session (engine/websocket/shared-message-throttle.ts): counted against the
   * subscription's burst control and quota and the application's policy, in the same counters as calls on
   * that subscription, so every io thread (and, with Redis, every node) sees one limit. False: refused;
   * `refusal` says by which level and for how long.
   */
  countMessage(now: number, auth: AuthContext, apiId: string, refusal: { code: number; retryAfterMs: number }): boolean {
    const cp = this.policies;
    if (cp === null || this.table === null) return true;
    this.now = now;
    this.taken = 0;
    this.bestRemaining = -1;
    this.decisionApi = apiId;
    this.decisionAuth = auth;
    const sub = cp.resolve('subscription', auth.tier);
    if (sub !== null) {
      const subKey = `${auth.application}${SEP}${apiId}${SEP}${auth.tier}`;
      if (sub.burst !== null) {
        const k = `b${SEP}${subKey}`;
        const r = this.acquireLevel('burst', sub.name, k, hashInto(k, this.h), sub.burst, 1);
        if (r >= 0) return refuse(refusal, 'burst', r);
      }
      const k = `s${SEP}${subKey}`;
      const r = this.acquireLevel('subscription', sub.name, k, hashInto(k, this.h), sub.quota!, 1);
      if (r >= 0) return refuse(refusal, 'subscription', r);
    }
    const app = cp.resolve('application', auth.applicationTier);
    if (app !== null) {
      const k = `p${SEP}${auth.application}${SEP}${auth.user}${SEP}${auth.applicationTier}`;
      const r = this.acquireLevel('application', app.name, k, hashInto(k, this.h), app.quota!, 1);
      if (r >= 0) return refuse(refusal, 'application', r);
    }
    return true;
  }

  /** Whether a session with these policies is throttled at all (neither policy resolves: no). */
  limitsMessages(auth: AuthContext): boolean {
    const cp = this.policies;
    return cp !== null && this.table !== null && (cp.resolve('subscription', auth.tier) !== null || cp.resolve('application', auth.applicationTier) !== null);
  }

  private take(slot: number, winNo: number, amount: number): void {
    const n = this.taken;
    if (n >= MAX_LEVELS) return;
    this.takenSlot[n] = slot;
    this.takenWin[n] = winNo;
    this.takenAmount[n] = amount;
    this.taken = n + 1;
  }

  /** A level refused the call: the levels before it did not serve it, so their counts go back. */
  private giveBack(): void {
    const table = this.table!;
    for (let i = 0; i < this.taken; i++) table.release(this.takenSlot[i]!, this.takenWin[i]!, this.takenAmount[i]!);
    this.taken = 0;
  }

  private throttleOut(ctx: Call, level: ThrottleLevel | 'blocked', q: CQuota | null, resetMs: number): void {
    const error = LEVEL_ERROR[level];
    if (q === null) { ctx.raise(error); return; }
    const retry = String(Math.max(1, Math.ceil(resetMs / 1000)));
    if (this.policies!.settings.rateLimitHeaders) {
      ctx.addResponseHeaders('X-RateLimit-Limit', String(q.limit), 'X-RateLimit-Remaining', '0', 'X-RateLimit-Reset', retry);
    }
    ctx.raise(error, {
      description: `${error.description}. You can access the API again after ${new Date(this.now + resetMs).toISOString()}`,
      headers: [['Retry-After', retry]],
    });
  }

  // ---- block conditions ----------------------------------------------------------------------------

  private isBlocked(ctx: Call, cp: CompiledPolicies, info: ApiInfo): boolean {
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
          case 'API': matches = apiMatches(ctx.api!.def, inv.value); break;
        }
        if (matches === false) { blocked = true; break; }
      }
    }
    if (!blocked) return false;
    this.log.debug({ api: info.id, ip: this.ipDone ? this.ipText : undefined, user: auth?.user, application: auth?.application }, 'call blocked by a block condition');
    this.throttleOut(ctx, 'blocked', null, 0);
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

  // ---- per API --------------------------------------------------------------------------------------

  private infoOf(def: ApiDefinition, cp: CompiledPolicies): ApiInfo {
    let info = this.apiInfo.get(def);
    if (info !== undefined) return info;
    const apiPolicy = cp.resolve('advanced', def.throttlingPolicy);
    const apiKey = `a${SEP}${def.id}${SEP}${def.throttlingPolicy}`;
    const b = cp.blocks;
    let blocked = false;
    if (b !== null) {
      for (const v of b.apis) if (apiMatches(def, v)) blocked = true;
    }
    info = {
      id: def.id,
      apiPolicy,
      apiKey,
      apiHash: hashOf(apiKey),
      hardKey: `h${SEP}${def.id}`,
      hard: def.backendMaxTps !== undefined && def.backendMaxTps > 0
        ? { limit: def.backendMaxTps, unit: 1, windowMs: 1000, kind: 0, span: 1000n, limitWord: BigInt(def.backendMaxTps) }
        : null,
      blocked,
      resources: new Map(),
    };
    this.apiInfo.set(def, info);
    return info;
  }

  private resourceInfo(info: ApiInfo, r: ResourceDefinition, cp: CompiledPolicies): ResourceInfo {
    const label = `${r.verb} ${r.uriTemplate}`;
    const key = `r${SEP}${info.id}${SEP}${label}${SEP}${r.throttlingPolicy}`;
    return { policy: cp.resolve('advanced', r.throttlingPolicy), key, hash: hashOf(key), label };
  }

  // ---- reports to the main thread -----------------------------------------------------------------

  private announce(slot: number, key: string): void {
    this.pendingKeys.push(slot, key);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flushKeys);
  }

  private readonly flushKeys = (): void => {
    this.flushScheduled = false;
    if (this.pendingKeys.length === 0) return;
    const keys = this.pendingKeys;
    this.pendingKeys = [];
    this.post({ t: 'keys', keys });
  };

  private decide(level: ThrottleLevel, policy: string, key: string, q: CQuota, winNo: number, throttled: boolean): void {
    const auth = this.decisionAuth;
    const d: DecisionFacts = {
      key, level, policy, code: LEVEL_ERROR[level].code, throttled, limit: q.limit, until: (winNo + 1) * q.windowMs,
      api: this.decisionApi,
      ...(auth !== null ? { application: auth.application, user: auth.user } : {}),
    };
    if (!throttled) this.log.info({ scope: level, policy, api: d.api, application: d.application, limit: q.limit }, 'quota reached; calls continue (stop_on_quota_reach = false)');
    this.post({ t: 'decision', d });
  }

  private post(m: IoThrottleMessage): void {
    try {
      this.channel?.postMessage(m);
    } catch (err) {
      this.warnings.warn('report', { err: (err as Error).message }, 'throttle report to the main thread failed');
    }
  }

  private tableFull(): void {
    this.warnings.warn('table full', { slots: this.table!.mask + 1 }, 'throttle counter table full: some calls are not counted (raise apim.throttling.counter_table_size)');
  }

  /** Bandwidth policies: the response's bytes are charged when the call ends. */
  private readonly onCallDone = (message: unknown): void => {
    const ctx = message as Call;
    const list = ctx.properties?.get(BANDWIDTH_PROPERTY) as number[] | undefined;
    if (list === undefined || ctx.respBytes <= 0 || this.table === null) return;
    const now = Date.now();
    for (let i = 0; i < list.length; i += 3) this.table.add(list[i]!, Math.floor(now / list[i + 1]!), Math.ceil(ctx.respBytes / list[i + 2]!));
  };
}

function apiMatches(def: ApiDefinition, value: string): boolean {
  const v = value.replace(/\/+$/, '');
  return v === def.context || v === `${def.context}/${def.version}`;
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

/** acquireLevel: the level let the call (or message) through. */
const PASSED = -1;

function refuse(r: { code: number; retryAfterMs: number }, level: ThrottleLevel, ms: number): false {
  r.code = LEVEL_ERROR[level].code;
  r.retryAfterMs = ms;
  return false;
}
