import type { ApiDefinition, ApplicationDefinition, ThrottlePolicy } from '../registry/types.js';
import type { BlockConditionRecord, DeploymentAck, GatewayInfo, RevokedToken } from '../store/index.js';

/**
 * The control plane's internal endpoints, on its servlet HTTPS port (docs/operations.md). A gateway-worker
 * calls them with [apim.event_hub] username/password (HTTP Basic; a user with the admin role).
 *
 *   GET  /internal/data/v1/runtime-artifacts[?kinds=apis,applications,policies,revoked]  -> ArtifactSnapshot
 *   GET  /internal/data/v1/events?after=<revision>[&wait=<seconds>]                       -> EventsPage (long poll)
 *   POST /internal/data/v1/gateways                    GatewayInfo                        -> 201 (registration)
 *   POST /internal/data/v1/gateways/<id>/heartbeat                                         -> 204, 404 unknown
 *   POST /internal/data/v1/gateways/<id>/deployments  { acks: DeploymentAck[] }           -> 204, 404 unknown
 */
export const INTERNAL_BASE = '/internal/data/v1';

export type ArtifactKind = 'apis' | 'applications' | 'policies' | 'revoked';
export const ARTIFACT_KINDS: readonly ArtifactKind[] = ['apis', 'applications', 'policies', 'revoked'];

/** Runtime artifacts as of `revision` (the event hub position to follow from). Secrets are never included. */
export interface ArtifactSnapshot {
  readonly revision: number;
  readonly apis?: readonly ApiDefinition[];
  /** Applications with their keys (client ids, grant types, scopes; the secret hash is blanked) and subscriptions. */
  readonly applications?: readonly ApplicationDefinition[];
  readonly policies?: readonly ThrottlePolicy[];
  readonly blockConditions?: readonly BlockConditionRecord[];
  /** Access tokens revoked (or replaced) and not yet expired. */
  readonly revokedTokens?: readonly RevokedToken[];
}

export interface JournalEntry {
  readonly id: number;
  readonly event: Record<string, unknown> & { readonly type: string };
}

export interface EventsPage {
  /** Position after the events returned. */
  readonly revision: number;
  readonly events: readonly JournalEntry[];
  /** The follower is too far behind (or ahead: another database): pull everything again. */
  readonly resync: boolean;
}

export interface AckBatch {
  readonly acks: readonly DeploymentAck[];
}

export type { GatewayInfo, DeploymentAck };
