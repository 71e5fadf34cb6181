import type { Db } from './db.js';

export type GatewayStatus = 'ACTIVE' | 'EXPIRED';

/** What a gateway says about itself when it registers. */
export interface GatewayInfo {
  readonly gatewayId: string;
  /** [apim.sync_runtime_artifacts.gateway] gateway_labels: the environments it serves. */
  readonly labels: readonly string[];
  readonly host: string;
  readonly role: string;
  /** Ports, version, start time...: shown as given. */
  readonly properties: Readonly<Record<string, unknown>>;
}

export interface GatewayRecord extends GatewayInfo {
  readonly status: GatewayStatus;
  readonly registeredAt: number;
  readonly lastHeartbeat: number;
}

/** One deployment acknowledgment: this gateway deployed (or undeployed) this revision of an API. */
export interface DeploymentAck {
  readonly apiId: string;
  /** A short hash of the definition the gateway deployed. */
  readonly revision: string;
  readonly action: 'DEPLOY' | 'UNDEPLOY';
  /** ms since the epoch, when the gateway applied it. */
  readonly deployedAt: number;
}

export interface GatewayDeployment extends DeploymentAck {
  readonly ackedAt: number;
}

interface GatewayRow { gateway_id: string; labels: string; host: string; role: string; properties: string; status: string; registered_at: number; last_heartbeat: number }
interface DeploymentRow { gateway_id: string; api_id: string; revision: string; action: string; deployed_at: number; acked_at: number }

const toRecord = (r: GatewayRow): GatewayRecord => ({
  gatewayId: r.gateway_id,
  labels: r.labels.split(',').filter(Boolean),
  host: r.host,
  role: r.role,
  properties: JSON.parse(r.properties) as Record<string, unknown>,
  status: r.status as GatewayStatus,
  registeredAt: Number(r.registered_at),
  lastHeartbeat: Number(r.last_heartbeat),
});

/** The `gateways` and `gateway_deployments` tables (gateway notification, control plane side). */
export class GatewayTable {
  constructor(private readonly db: Db) {}

  async register(g: GatewayInfo, now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO gateways (gateway_id, labels, host, role, properties, status, registered_at, last_heartbeat) VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?, ?)
       ON CONFLICT (gateway_id) DO UPDATE SET labels = excluded.labels, host = excluded.host, role = excluded.role,
         properties = excluded.properties, status = 'ACTIVE', registered_at = excluded.registered_at, last_heartbeat = excluded.last_heartbeat`,
      [g.gatewayId, g.labels.join(','), g.host, g.role, JSON.stringify(g.properties), now, now],
    );
  }

  /** False when the gateway is unknown (it registers again). */
  async heartbeat(gatewayId: string, now = Date.now()): Promise<boolean> {
    return (await this.db.run(`UPDATE gateways SET last_heartbeat = ?, status = 'ACTIVE' WHERE gateway_id = ?`, [now, gatewayId])).changes > 0;
  }

  /** Records a batch of acknowledgments; false when the gateway is unknown. */
  async acknowledge(gatewayId: string, acks: readonly DeploymentAck[], now = Date.now()): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const known = await tx.get('SELECT gateway_id FROM gateways WHERE gateway_id = ?', [gatewayId]);
      if (!known) return false;
      for (const a of acks) {
        await tx.run(
          `INSERT INTO gateway_deployments (gateway_id, api_id, revision, action, deployed_at, acked_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (gateway_id, api_id) DO UPDATE SET revision = excluded.revision, action = excluded.action,
             deployed_at = excluded.deployed_at, acked_at = excluded.acked_at`,
          [gatewayId, a.apiId, a.revision, a.action, a.deployedAt, now],
        );
      }
      return true;
    });
  }

  async list(): Promise<GatewayRecord[]> {
    return (await this.db.all<GatewayRow>('SELECT * FROM gateways ORDER BY registered_at, gateway_id')).map(toRecord);
  }

  async get(gatewayId: string): Promise<GatewayRecord | undefined> {
    const r = await this.db.get<GatewayRow>('SELECT * FROM gateways WHERE gateway_id = ?', [gatewayId]);
    return r ? toRecord(r) : undefined;
  }

  async deployments(gatewayId?: string): Promise<(GatewayDeployment & { gatewayId: string })[]> {
    const rows = gatewayId
      ? await this.db.all<DeploymentRow>('SELECT * FROM gateway_deployments WHERE gateway_id = ? ORDER BY api_id', [gatewayId])
      : await this.db.all<DeploymentRow>('SELECT * FROM gateway_deployments ORDER BY gateway_id, api_id');
    return rows.map((r) => ({
      gatewayId: r.gateway_id, apiId: r.api_id, revision: r.revision, action: r.action as DeploymentAck['action'],
      deployedAt: Number(r.deployed_at), ackedAt: Number(r.acked_at),
    }));
  }

  /** [apim.gateway_notification.cleanup]: EXPIRED without a heartbeat for `expiryMs`, forgotten after `retentionMs`. */
  async cleanup(now: number, expiryMs: number, retentionMs: number): Promise<{ expired: string[]; removed: number }> {
    const expired = (await this.db.all<{ gateway_id: string }>(
      `UPDATE gateways SET status = 'EXPIRED' WHERE status = 'ACTIVE' AND last_heartbeat < ? RETURNING gateway_id`, [now - expiryMs])).map((r) => r.gateway_id);
    const { changes } = await this.db.run('DELETE FROM gateways WHERE last_heartbeat < ?', [now - retentionMs]);
    return { expired, removed: changes };
  }
}
