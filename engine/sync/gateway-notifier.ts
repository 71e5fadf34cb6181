import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { GatewayNotificationView } from '../../conf/views/control-plane.js';
import type { GatewayNotifications } from '../controlplane/gateway-directory.js';
import { INTERNAL_BASE } from '../controlplane/protocol.js';
import type { ApiDefinition } from '../registry/types.js';
import type { DeploymentAck, GatewayInfo } from '../store/index.js';
import type { ControlPlaneClient } from './control-plane-client.js';

const sleep = (ms: number, signal: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

/** [apim.gateway_notification] gateway_id, else a UUID made once and kept in <home>/repository/database/gateway-id. */
export function gatewayId(view: GatewayNotificationView, homeRoot: string): string {
  if (view.gatewayId) return view.gatewayId;
  const file = path.join(homeRoot, 'repository/database/gateway-id');
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    if (id) return id;
  } catch { /* first start */ }
  const id = crypto.randomUUID();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, id + '\n');
  return id;
}

/** A short hash of what a gateway deployed for an API (its definition without where it came from). */
export function apiRevision(api: ApiDefinition): string {
  const { source: _source, ...def } = api;
  return crypto.createHash('sha256').update(JSON.stringify(def)).digest('base64url').slice(0, 12);
}

/** The control plane over HTTP (a gateway-worker). */
export class HttpGatewayNotifications implements GatewayNotifications {
  constructor(private readonly client: ControlPlaneClient) {}
  async register(info: GatewayInfo): Promise<void> {
    const r = await this.client.post(`${INTERNAL_BASE}/gateways`, info);
    if (r.status !== 201 && r.status !== 200) throw new Error(`registration answered ${r.status} (is ${this.client.urls[0]} a control plane?)`);
  }
  async heartbeat(id: string): Promise<boolean> {
    return (await this.client.post(`${INTERNAL_BASE}/gateways/${encodeURIComponent(id)}/heartbeat`, {})).status !== 404;
  }
  async acknowledge(id: string, acks: readonly DeploymentAck[]): Promise<boolean> {
    return (await this.client.post(`${INTERNAL_BASE}/gateways/${encodeURIComponent(id)}/deployments`, { acks })).status !== 404;
  }
}

/**
 * The gateway's side of gateway notification (seed 000 Events; [apim.gateway_notification]):
 * - registration when the gateway starts, retried per `.registration` (retry_duration, then times
 *   retry_progression_factor, max_retry_count times); a heartbeat the control plane does not recognise
 *   (it forgot an expired gateway) registers again;
 * - a heartbeat every `.heartbeat.notify_interval`;
 * - a deployment acknowledgment per API deployed, changed or undeployed, sent in batches of
 *   `.deployment_ack.batch_size` at most, every `.deployment_ack.batch_interval`, a failed batch retried per
 *   `.deployment_ack` (retry_duration, retry_progression_factor, max_retry_count) and then dropped with a
 *   warning. The batch_processor_* keys size a Java thread pool: one asynchronous sender does it here.
 */
export class GatewayNotifier {
  private registered = false;
  private readonly abort = new AbortController();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private ackTimer: NodeJS.Timeout | null = null;
  private readonly queue: DeploymentAck[] = [];
  private sending: Promise<void> | null = null;
  private deployedRevisions = new Map<string, string>();
  private registering: Promise<void> | null = null;

  constructor(
    private readonly transport: GatewayNotifications,
    private readonly info: GatewayInfo,
    private view: GatewayNotificationView,
    private readonly log: Logger,
  ) {}

  get gatewayId(): string {
    return this.info.gatewayId;
  }

  /** Registers (in the background, with retries) and starts the heartbeat. */
  start(initial: readonly ApiDefinition[]): void {
    this.deployed(initial);
    this.registering = this.register();
    this.scheduleHeartbeat();
  }

  private async register(): Promise<void> {
    const r = this.view.registration;
    let wait = r.retryDuration;
    for (let attempt = 0; attempt <= r.maxRetryCount && !this.abort.signal.aborted; attempt++) {
      try {
        await this.transport.register(this.info);
        if (!this.registered) this.log.info({ gateway: this.info.gatewayId, labels: this.info.labels }, 'gateway registered with the control plane');
        this.registered = true;
        this.kickAcks();
        return;
      } catch (err) {
        const last = attempt === r.maxRetryCount;
        this.log.warn({ err: (err as Error).message, attempt: attempt + 1, ...(last ? {} : { retryInMs: wait }) }, 'gateway registration failed');
        if (last) break;
        await sleep(wait, this.abort.signal);
        wait *= r.progressionFactor;
      }
    }
    if (!this.abort.signal.aborted) this.log.error('gateway registration given up ([apim.gateway_notification.registration] retries used up); the heartbeat tries again');
  }

  private scheduleHeartbeat(): void {
    if (this.abort.signal.aborted) return;
    this.heartbeatTimer = setTimeout(() => { void this.beat().finally(() => this.scheduleHeartbeat()); }, this.view.heartbeatInterval);
    this.heartbeatTimer.unref();
  }

  private async beat(): Promise<void> {
    try {
      if (!this.registered) {
        await this.transport.register(this.info);
        this.registered = true;
        this.log.info({ gateway: this.info.gatewayId }, 'gateway registered with the control plane');
        this.requeueAll();
        return;
      }
      if (!(await this.transport.heartbeat(this.info.gatewayId))) {
        this.log.warn({ gateway: this.info.gatewayId }, 'the control plane does not know this gateway (expired?): registering again');
        this.registered = false;
        await this.transport.register(this.info);
        this.registered = true;
        this.requeueAll();
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'gateway heartbeat failed');
    }
  }

  /** After a new registration the control plane has no deployments of ours: acknowledge them all again. */
  private requeueAll(): void {
    const now = Date.now();
    for (const [apiId, revision] of this.deployedRevisions) this.queue.push({ apiId, revision, action: 'DEPLOY', deployedAt: now });
    this.kickAcks();
  }

  /** The gateway's io threads now serve these APIs: acknowledge what changed. */
  deployed(apis: readonly ApiDefinition[]): void {
    const now = Date.now();
    const next = new Map(apis.map((a) => [a.id, apiRevision(a)] as const));
    for (const [id, rev] of next) {
      if (this.deployedRevisions.get(id) !== rev) this.queue.push({ apiId: id, revision: rev, action: 'DEPLOY', deployedAt: now });
    }
    for (const [id, rev] of this.deployedRevisions) {
      if (!next.has(id)) this.queue.push({ apiId: id, revision: rev, action: 'UNDEPLOY', deployedAt: now });
    }
    this.deployedRevisions = next;
    if (this.queue.length >= this.view.ack.batchSize) this.kickAcks();
    else if (this.queue.length) this.ackTimer ??= setTimeout(() => { this.ackTimer = null; this.kickAcks(); }, this.view.ack.batchInterval);
  }

  private kickAcks(): void {
    if (this.ackTimer) { clearTimeout(this.ackTimer); this.ackTimer = null; }
    if (this.sending || !this.registered || this.queue.length === 0) return;
    this.sending = this.sendBatches().finally(() => { this.sending = null; });
  }

  private async sendBatches(): Promise<void> {
    const a = this.view.ack;
    while (this.queue.length && !this.abort.signal.aborted) {
      const batch = this.queue.splice(0, a.batchSize);
      let wait = a.retryDuration;
      for (let attempt = 0; ; attempt++) {
        try {
          if (!(await this.transport.acknowledge(this.info.gatewayId, batch))) {
            this.registered = false;
            this.queue.unshift(...batch);
            return;
          }
          this.log.debug({ acks: batch.length }, 'deployment acknowledgments sent');
          break;
        } catch (err) {
          if (attempt >= a.maxRetryCount || this.abort.signal.aborted) {
            this.log.warn({ err: (err as Error).message, dropped: batch.length }, 'deployment acknowledgments dropped ([apim.gateway_notification.deployment_ack] retries used up)');
            break;
          }
          await sleep(wait, this.abort.signal);
          wait *= a.progressionFactor;
        }
      }
    }
  }

  reconfigure(view: GatewayNotificationView): void {
    this.view = view;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    if (this.ackTimer) clearTimeout(this.ackTimer);
    await Promise.all([this.sending, this.registering].map((p) => p?.catch(() => {})));
  }
}
