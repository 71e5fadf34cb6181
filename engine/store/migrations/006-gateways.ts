import type { Migration } from './types.js';

/** Gateway notification ([apim.gateway_notification]): registered gateways, their heartbeats and deployments. */
export const m006Gateways: Migration = {
  version: 6,
  name: 'gateways',
  up: () => [
    `CREATE TABLE gateways (
      gateway_id TEXT PRIMARY KEY,
      labels TEXT NOT NULL,
      host TEXT NOT NULL,
      role TEXT NOT NULL,
      properties TEXT NOT NULL,
      status TEXT NOT NULL,
      registered_at BIGINT NOT NULL,
      last_heartbeat BIGINT NOT NULL
    )`,
    `CREATE TABLE gateway_deployments (
      gateway_id TEXT NOT NULL REFERENCES gateways (gateway_id) ON DELETE CASCADE,
      api_id TEXT NOT NULL,
      revision TEXT NOT NULL,
      action TEXT NOT NULL,
      deployed_at BIGINT NOT NULL,
      acked_at BIGINT NOT NULL,
      PRIMARY KEY (gateway_id, api_id)
    )`,
  ],
};
