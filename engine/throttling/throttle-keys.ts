import type { AuthContext } from '../kernel/call.js';
import type { ApiDefinition, ResourceDefinition } from '../registry/types.js';
import type { CompiledPolicies, CPolicy, CQuota } from './compiled.js';
import { hashOf, type KeyHash } from './hash.js';

/** Separates the parts of a throttle key (a character no name or address holds). */
export const SEP = '\u001f';

/** Per API definition (cached until the API or the policies change): its keys and policies. */
export interface ApiInfo {
  readonly id: string;
  readonly apiPolicy: CPolicy | null;
  readonly apiKey: string;
  readonly apiHash: KeyHash;
  readonly hardKey: string;
  readonly hard: CQuota | null;
  readonly blocked: boolean;
  readonly resources: Map<ResourceDefinition, ResourceInfo>;
}

/**
 * A caller's subscription and application keys on one API, with their hashes and policies: the authorize
 * phase keeps one caller object per token and tier, so a client's calls find them here instead of building
 * three keys, hashing them and looking up two policies by name on every call. Calls and WebSocket messages
 * count under the same keys. New policies start new keys (ThrottleEvaluator.usePolicies).
 */
export interface CallerKeys {
  readonly apiId: string;
  /** The caller's subscription and application policies (null: unlimited), resolved once. */
  readonly sub: CPolicy | null;
  readonly app: CPolicy | null;
  readonly burstKey: string;
  readonly burstHash: KeyHash;
  readonly subKey: string;
  readonly subHash: KeyHash;
  readonly appKey: string;
  readonly appHash: KeyHash;
}

export interface ResourceInfo {
  readonly policy: CPolicy | null;
  readonly key: string;
  readonly hash: KeyHash;
  readonly label: string;
}

/**
 * The throttle keys and policies of APIs, resources and callers under one set of compiled policies, made on
 * first use and kept per object (an API definition, a resource, a caller's AuthContext): a call finds them
 * instead of building keys, hashing them and resolving policies by name. The evaluator makes a new one when
 * the policies change.
 */
export class ThrottleKeys {
  private readonly apiInfo = new WeakMap<ApiDefinition, ApiInfo>();
  private readonly callerKeys = new WeakMap<AuthContext, CallerKeys>();
  /**
   * The last call's API, resource and caller with what the maps above gave for them: under load the next
   * call is mostly the same client on the same resource, and a WeakMap or Map lookup is a builtin call
   * each (about 100 instructions, callgrind).
   */
  private lastDef: ApiDefinition | null = null;
  private lastInfo: ApiInfo | null = null;
  private lastResource: ResourceDefinition | null = null;
  private lastResourceInfo: ResourceInfo | null = null;
  private lastAuth: AuthContext | null = null;
  private lastKeys: CallerKeys | null = null;

  constructor(private readonly cp: CompiledPolicies) {}

  /** The caller's keys on this API (CallerKeys), made on its first call or message there. */
  keysOf(auth: AuthContext, apiId: string): CallerKeys {
    const cp = this.cp;
    const last = this.lastKeys;
    if (auth === this.lastAuth && last !== null && last.apiId === apiId) return last;
    let keys = this.callerKeys.get(auth);
    if (keys === undefined || keys.apiId !== apiId) {
      const subscription = `${auth.application}${SEP}${apiId}${SEP}${auth.tier}`;
      const burstKey = `b${SEP}${subscription}`;
      const subKey = `s${SEP}${subscription}`;
      const appKey = `p${SEP}${auth.application}${SEP}${auth.user}${SEP}${auth.applicationTier}`;
      keys = {
        apiId, sub: cp.resolve('subscription', auth.tier), app: cp.resolve('application', auth.applicationTier),
        burstKey, burstHash: hashOf(burstKey), subKey, subHash: hashOf(subKey), appKey, appHash: hashOf(appKey),
      };
      this.callerKeys.set(auth, keys);
    }
    this.lastAuth = auth;
    this.lastKeys = keys;
    return keys;
  }

  /** The API's keys and policies (ApiInfo), made on its first call. */
  infoOf(def: ApiDefinition): ApiInfo {
    if (def === this.lastDef) return this.lastInfo!;
    let info = this.apiInfo.get(def);
    if (info === undefined) {
      info = this.newInfo(def);
      this.apiInfo.set(def, info);
    }
    this.lastDef = def;
    this.lastInfo = info;
    return info;
  }

  /** A resource's keys and policy on its API (cached in the API's info). */
  resourceInfoOf(info: ApiInfo, resource: ResourceDefinition): ResourceInfo {
    if (resource === this.lastResource && info === this.lastInfo) return this.lastResourceInfo!;
    let ri = info.resources.get(resource);
    if (ri === undefined) { ri = this.resourceInfo(info, resource); info.resources.set(resource, ri); }
    this.lastResource = resource;
    this.lastResourceInfo = ri;
    return ri;
  }

  private newInfo(def: ApiDefinition): ApiInfo {
    const cp = this.cp;
    const apiPolicy = cp.resolve('advanced', def.throttlingPolicy);
    const apiKey = `a${SEP}${def.id}${SEP}${def.throttlingPolicy}`;
    const b = cp.blocks;
    let blocked = false;
    if (b !== null) {
      for (const v of b.apis) if (apiMatches(def, v)) blocked = true;
    }
    return {
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
  }

  private resourceInfo(info: ApiInfo, r: ResourceDefinition): ResourceInfo {
    const cp = this.cp;
    const label = `${r.verb} ${r.uriTemplate}`;
    const key = `r${SEP}${info.id}${SEP}${label}${SEP}${r.throttlingPolicy}`;
    return { policy: cp.resolve('advanced', r.throttlingPolicy), key, hash: hashOf(key), label };
  }
}

/** Whether a block condition's API value (`/context` or `/context/version`) names the API. */
export function apiMatches(def: ApiDefinition, value: string): boolean {
  const v = value.replace(/\/+$/, '');
  return v === def.context || v === `${def.context}/${def.version}`;
}
