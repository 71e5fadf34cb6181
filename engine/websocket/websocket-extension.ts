import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import type { Logger } from 'pino';
import type { ExtensionThreads, GatewayExtension } from '../kernel/extension.js';
import { WS_POLICY_STATE, type MessagePolicies, type MessageQuota } from './message-throttle.js';

const UNIT_MS: Readonly<Record<string, number>> = { sec: 1000, min: 60_000, hour: 3_600_000, day: 86_400_000 };

function quotaOf(t: Record<string, unknown>, stopDefault: boolean): MessageQuota | null {
  const name = t['name'];
  const requests = t['requests'];
  if (typeof name !== 'string' || t['unlimited'] === true || typeof requests !== 'number' || requests < 0) return null;
  const unit = UNIT_MS[String(t['time_unit'] ?? 'min')];
  const unitTime = typeof t['unit_time'] === 'number' && t['unit_time'] > 0 ? t['unit_time'] : 1;
  if (unit === undefined) return null;
  const b = t['burst'] as Record<string, unknown> | undefined;
  const burstUnit = b ? UNIT_MS[String(b['time_unit'] ?? 'sec')] : undefined;
  return {
    name,
    requests: Math.floor(requests),
    windowMs: unitTime * unit,
    stopOnQuotaReach: typeof t['stop_on_quota_reach'] === 'boolean' ? t['stop_on_quota_reach'] : stopDefault,
    burst: b && typeof b['requests'] === 'number' && burstUnit !== undefined ? { requests: Math.floor(b['requests']), windowMs: burstUnit } : null,
  };
}

/**
 * Reads the subscription and application policies of <home>/repository/deployment/server/policies/*.toml
 * (DESIGN.md's format; request-count quotas only). Files that do not parse are skipped: the throttling
 * engine reports them.
 */
export function readMessagePolicies(dir: string): MessagePolicies {
  const subscription: MessageQuota[] = [];
  const application: MessageQuota[] = [];
  let files: string[] = [];
  try { files = fs.readdirSync(dir).filter((f) => f.endsWith('.toml')).sort(); } catch { /* no policies directory */ }
  for (const f of files) {
    let doc: Record<string, unknown>;
    try { doc = parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>; } catch { continue; }
    for (const [table, into] of [['subscription', subscription], ['application', application]] as const) {
      const list = doc[table];
      if (!Array.isArray(list)) continue;
      for (const t of list) {
        const q = quotaOf(t as Record<string, unknown>, true);
        if (q !== null) into.push(q);
      }
    }
  }
  return { subscription, application };
}

/**
 * The WebSocket part of the gateway on the main thread: gives the io threads the policies their
 * message throttle counts against, and keeps them current (rescanned every few seconds).
 *
 * Interim: when engine/throttling lands, its extension owns the policies and this one goes (docs/websocket.md).
 */
export class WebSocketExtension implements GatewayExtension {
  readonly name = 'websocket';
  private timer: NodeJS.Timeout | null = null;
  private last = '';

  constructor(private readonly policiesDir: string, private readonly log: Logger, private readonly rescanMs = 5000) {}

  initialState(): Record<string, unknown> {
    const p = readMessagePolicies(this.policiesDir);
    this.last = JSON.stringify(p);
    return { [WS_POLICY_STATE]: p };
  }

  started(threads: ExtensionThreads): void {
    this.timer = setInterval(() => {
      const p = readMessagePolicies(this.policiesDir);
      const text = JSON.stringify(p);
      if (text === this.last) return;
      this.last = text;
      this.log.debug({ subscription: p.subscription.length, application: p.application.length }, 'WebSocket message throttling: policies changed');
      void threads.pushState(WS_POLICY_STATE, p);
    }, this.rescanMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
