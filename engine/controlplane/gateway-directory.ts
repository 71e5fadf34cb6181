import type { Logger } from 'pino';
import type { GatewayNotificationView } from '../../conf/views/control-plane.js';
import { HttpError, empty, json, type ServletRequest, type ServletServer } from '../servlet/index.js';
import type { ApimStore, DeploymentAck, GatewayInfo, GatewayRecord } from '../store/index.js';
import type { UserDirectory } from '../keymanager/users.js';
import { requireAdmin, requireHttps } from './auth.js';
import { INTERNAL_BASE } from './protocol.js';

/** What a gateway's notifier calls: the control plane in this process, or over HTTP. */
export interface GatewayNotifications {
  register(info: GatewayInfo): Promise<void>;
  /** False: the control plane does not know the gateway (it registers again). */
  heartbeat(gatewayId: string): Promise<boolean>;
  acknowledge(gatewayId: string, acks: readonly DeploymentAck[]): Promise<boolean>;
}

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

function asInfo(body: unknown): GatewayInfo {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const id = b['gatewayId'];
  if (typeof id !== 'string' || !ID.test(id)) throw new HttpError(400, 'gatewayId must be 1-128 letters, digits and . _ : -');
  const labels = Array.isArray(b['labels']) && b['labels'].every((l) => typeof l === 'string') ? b['labels'] as string[] : ['Default'];
  const props = b['properties'] && typeof b['properties'] === 'object' && !Array.isArray(b['properties']) ? b['properties'] as Record<string, unknown> : {};
  return {
    gatewayId: id, labels,
    host: typeof b['host'] === 'string' ? b['host'] : '',
    role: typeof b['role'] === 'string' ? b['role'] : 'gateway-worker',
    properties: props,
  };
}

function asAcks(body: unknown): DeploymentAck[] {
  const list = body && typeof body === 'object' ? (body as { acks?: unknown }).acks : undefined;
  if (!Array.isArray(list)) throw new HttpError(400, 'the body must be { "acks": [...] }');
  return list.map((a, i) => {
    const o = a as Record<string, unknown>;
    if (!o || typeof o['apiId'] !== 'string' || typeof o['revision'] !== 'string' || (o['action'] !== 'DEPLOY' && o['action'] !== 'UNDEPLOY')) {
      throw new HttpError(400, `acks[${i}] needs apiId, revision and action DEPLOY or UNDEPLOY`);
    }
    return { apiId: o['apiId'], revision: o['revision'], action: o['action'], deployedAt: Number(o['deployedAt']) || Date.now() };
  });
}

/**
 * The control plane's side of gateway notification ([apim.gateway_notification]): registrations,
 * heartbeats and deployment acknowledgments are kept in the store; a gateway silent for
 * `.cleanup.expiry_time` is EXPIRED, and forgotten after `.cleanup.data_retention_period`. The admin API
 * shows them (GET /api/am/admin/v1/environments/<name>/gateways).
 */
export class GatewayDirectory implements GatewayNotifications {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly store: ApimStore, private view: GatewayNotificationView, private readonly log: Logger) {}

  start(): void {
    const every = Math.max(500, Math.min(30_000, Math.floor(this.view.expiryTime / 4)));
    this.timer = setInterval(() => { void this.cleanup(); }, every);
    this.timer.unref();
  }

  async cleanup(now = Date.now()): Promise<void> {
    try {
      const r = await this.store.gateways.cleanup(now, this.view.expiryTime, this.view.retention);
      for (const id of r.expired) this.log.warn({ gateway: id, expiry: this.view.expiryTime }, 'gateway expired: no heartbeat');
      if (r.removed) this.log.info({ removed: r.removed }, 'expired gateways forgotten (data_retention_period)');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'gateway cleanup failed');
    }
  }

  async register(info: GatewayInfo): Promise<void> {
    await this.store.gateways.register(info);
    this.log.info({ gateway: info.gatewayId, host: info.host, labels: info.labels }, 'gateway registered');
  }

  heartbeat(gatewayId: string): Promise<boolean> {
    return this.store.gateways.heartbeat(gatewayId);
  }

  acknowledge(gatewayId: string, acks: readonly DeploymentAck[]): Promise<boolean> {
    return this.store.gateways.acknowledge(gatewayId, acks);
  }

  /** Gateways with their deployments, optionally only those serving an environment (label). */
  async list(environment?: string): Promise<(GatewayRecord & { deployments: DeploymentAck[] })[]> {
    const [gws, deps] = await Promise.all([this.store.gateways.list(), this.store.gateways.deployments()]);
    return gws
      .filter((g) => environment === undefined || g.labels.some((l) => l.toLowerCase() === environment.toLowerCase()))
      .map((g) => ({
        ...g,
        deployments: deps.filter((d) => d.gatewayId === g.gatewayId).map(({ apiId, revision, action, deployedAt }) => ({ apiId, revision, action, deployedAt })),
      }));
  }

  mount(servlet: ServletServer, users: UserDirectory): void {
    const guard = async (req: ServletRequest): Promise<void> => { requireHttps(req); await requireAdmin(req, users, 'Sluice event hub'); };
    servlet.route('POST', `${INTERNAL_BASE}/gateways`, async (req) => {
      await guard(req);
      const info = asInfo(await req.json());
      await this.register(info);
      return json(201, { gatewayId: info.gatewayId, heartbeatInterval: this.view.heartbeatInterval });
    });
    servlet.route('POST', `${INTERNAL_BASE}/gateways/*`, async (req) => {
      await guard(req);
      const m = /^\/internal\/data\/v1\/gateways\/([^/]+)\/(heartbeat|deployments)$/.exec(req.path);
      if (!m) throw new HttpError(404, `no resource at POST ${req.path}`);
      const id = m[1]!;
      if (m[2] === 'heartbeat') {
        if (!(await this.heartbeat(id))) throw new HttpError(404, `gateway ${id} is not registered`);
        return empty(204);
      }
      const acks = asAcks(await req.json());
      if (!(await this.acknowledge(id, acks))) throw new HttpError(404, `gateway ${id} is not registered`);
      return empty(204);
    });
  }

  reconfigure(view: GatewayNotificationView): void {
    this.view = view;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
