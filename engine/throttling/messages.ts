import type { ThrottleLevel } from './errors.js';
import type { SharedCounters } from './counter-table.js';

/**
 * Shared state keys of throttling (engine/gateway/shared-state.ts): the policy snapshot (replaced whole on
 * every change) and the counters' shared memory with the name of the channel the io threads report on.
 */
export const STATE_POLICIES = 'throttle.policies';
export const STATE_COUNTERS = 'throttle.counters';

export interface CountersState extends SharedCounters {
  /** BroadcastChannel name, unique per node (several nodes may share a process in tests). */
  readonly channel: string;
}

/**
 * What an io thread tells the main thread, on the node's BroadcastChannel:
 * - `keys`: slots it claimed, with their throttle keys (flat [slot, key, ...]), so the main thread can
 *   sync them with Redis and evict them when idle;
 * - `decision`: a throttle decision, once per key and window (the first refused call, or the first call
 *   over a quota that does not stop calls);
 * - `hungry`: clustered, a key ran out of leased calls while the cluster has room: sync with Redis now.
 */
export type IoThrottleMessage =
  | { readonly t: 'keys'; readonly keys: readonly (number | string)[] }
  | { readonly t: 'decision'; readonly d: DecisionFacts }
  | { readonly t: 'hungry' };

export interface DecisionFacts {
  readonly key: string;
  readonly level: ThrottleLevel;
  readonly policy: string;
  readonly code: number;
  /** false: the quota is reached but the policy lets calls pass (stop_on_quota_reach = false). */
  readonly throttled: boolean;
  readonly limit: number;
  /** ms since the epoch when the window frees. */
  readonly until: number;
  readonly api?: string;
  readonly application?: string;
  readonly user?: string;
}
