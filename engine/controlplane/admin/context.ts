import type { Logger } from 'pino';
import type { GatewayEnvironmentView } from '../../../conf/views/control-plane.js';
import type { EventBus, RegistryChangedEvent } from '../../events/event-bus.js';
import type { UserDirectory } from '../../keymanager/users.js';
import type { ApiKeys } from '../../keymanager/api-keys.js';
import type { ApiRegistry } from '../../registry/api-registry.js';
import type { ApimStore } from '../../store/index.js';
import type { GatewayDirectory } from '../gateway-directory.js';

/** What the admin API's handlers work with. */
export interface AdminContext {
  readonly store: ApimStore;
  readonly bus: EventBus;
  readonly apis: ApiRegistry;
  readonly users: UserDirectory;
  readonly gateways: GatewayDirectory;
  readonly log: Logger;
  /** Signs and revokes API keys; null where the key manager does not run. */
  readonly apiKeys: ApiKeys | null;
  environments(): readonly GatewayEnvironmentView[];
  /** Revokes the tokens of removed client ids (through the key manager's token service when it runs here). */
  revokeClients(clientIds: readonly string[]): Promise<number>;
  /** Applications changed: the key manager's client cache forgets them. */
  clientsChanged(): void;
  /** Roles changed: the key manager's scope-role bindings are read again. */
  rolesChanged(): void;
  /** Publishes `registry.changed`; resolves when this node's subscribers applied it (io threads included). */
  changed(kind: RegistryChangedEvent['kind']): Promise<void>;
}

/** Applications and APIs defined by a declarative file belong to it: the admin API does not change them. */
export function isFileSource(source: string): boolean {
  return source.endsWith('.toml');
}
