import type { GraphqlView } from '../../conf/views/security.js';
import type { PassthruView } from '../../conf/views/passthru.js';
import type { HeaderRules } from '../../transport/header-rules.js';
import type { FeatureHost } from '../kernel/extension.js';
import type { DeployedApis } from '../routing/deployed-apis.js';
import type { GatewaySecurity } from '../security/gateway-security.js';
import type { ApiMediation } from './api-mediation.js';
import type { SequenceFaultRenderer } from './sequence-faults.js';

/**
 * What an io thread offers the phase list (phase-list.ts): each entry's `enabledWhen` reads it and its
 * `make` builds the phase from it. GatewayThread provides it; a phase test may build one of its own.
 */
export interface PhaseEnv {
  /** [passthru_http]: body validation switches and limits. */
  readonly passthru: PassthruView;
  /** [sluice.graphql]: limits of a GraphQL query. */
  readonly graphql: GraphqlView;
  readonly deployed: DeployedApis;
  readonly security: GatewaySecurity;
  readonly faults: SequenceFaultRenderer;
  readonly mediation: ApiMediation;
  readonly headerRules: HeaderRules;
  /** The thread's log, shared state and channel to the main thread, for features' phases. */
  readonly host: FeatureHost;
  /** Tracing is on ([apim.open_tracer], switched live with the telemetry settings). */
  readonly tracing: boolean;
}
