import type { Logger } from 'pino';
import { RepeatedWarnings } from '../log/repeated-warnings.js';
import type { DecisionFacts, IoThrottleMessage } from './messages.js';

/**
 * What an io thread's throttling tells the main thread and the log: the keys of the slots it claimed
 * (batched per turn of the event loop), the decisions (once per key and window: the evaluator's NOTE bits
 * see to that), a clustered key that ran out of leases, and the warnings that could otherwise come once
 * per call (a full counter table, a failed report), one line a minute per kind.
 *
 * Only the rare paths come here: a call that counts in slots already claimed and passes every level
 * reports nothing.
 */
export class ThrottleReporter {
  private channel: BroadcastChannel | null = null;
  private pendingKeys: (number | string)[] = [];
  private flushScheduled = false;
  /** The per-call warnings below, one line a minute per kind with the count of the others. */
  private readonly warnings: RepeatedWarnings;

  constructor(private readonly log: Logger) {
    this.warnings = new RepeatedWarnings(log, { windowMs: 60_000 });
  }

  /** Reports go on the node's channel (its name comes with the counters' shared state). */
  connect(channelName: string): void {
    this.channel?.close();
    this.channel = new BroadcastChannel(channelName);
    (this.channel as unknown as { unref?: () => void }).unref?.();
  }

  /** Closes the channel: reports after this go nowhere (a stopping thread, a test's end). */
  close(): void {
    this.channel?.close();
    this.channel = null;
  }

  /** A slot this thread claimed for `key`: the main thread syncs it with Redis and evicts it when idle. */
  announce(slot: number, key: string): void {
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

  /** A throttle decision; a quota reached that lets calls pass is logged here too. */
  decision(d: DecisionFacts): void {
    if (!d.throttled) this.log.info({ scope: d.level, policy: d.policy, api: d.api, application: d.application, limit: d.limit }, 'quota reached; calls continue (stop_on_quota_reach = false)');
    this.post({ t: 'decision', d });
  }

  /** Clustered: this node's leases of a key ran out before the next sync; the main thread syncs now. */
  hungry(): void {
    this.post({ t: 'hungry' });
  }

  /** A call stopped by a block condition (debug: a blocked caller can send many). */
  blocked(api: string, ip: string | undefined, user: string | undefined, application: string | undefined): void {
    this.log.debug({ api, ip, user, application }, 'call blocked by a block condition');
  }

  tableFull(slots: number): void {
    this.warnings.warn('table full', { slots }, 'throttle counter table full: some calls are not counted (raise apim.throttling.counter_table_size)');
  }

  private post(m: IoThrottleMessage): void {
    try {
      this.channel?.postMessage(m);
    } catch (err) {
      this.warnings.warn('report', { err: (err as Error).message }, 'throttle report to the main thread failed');
    }
  }
}
