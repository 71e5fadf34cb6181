import type { AuthContext } from '../kernel/call.js';
import type { ApiDefinition } from '../registry/types.js';
import type { CallFacts } from '../../mediation/index.js';
import type { SessionThrottle } from './message-throttle.js';

let nextId = 0;

/** What the gateway knows about one WebSocket session (the relay's `meta`): fixed at the handshake. */
export class WsSession {
  readonly id = ++nextId;
  /** Messages dropped by the throttle (throttle_action = "drop"). */
  throttledDrops = 0;
  /** Messages dropped by a dispatch sequence, or because one failed. */
  mediationDrops = 0;

  constructor(
    readonly api: ApiDefinition,
    /** The token's facts with the subscription; null on a resource with auth type None. */
    readonly auth: AuthContext | null,
    /** For the dispatch sequences (get-property('api.ut.api') and friends). */
    readonly facts: CallFacts,
    /** The backend is wss:// ([transport.wss] sequences apply). */
    readonly secureBackend: boolean,
    readonly throttle: SessionThrottle | null,
    readonly clientIp: string,
    /** `/context/version/...`, without the query. */
    readonly path: string,
  ) {}
}
