import { GatewayError } from '../../errors/gateway.js';
import type { Call } from '../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../kernel/phase.js';

const UPGRADE: readonly (readonly [string, string])[] = [['Upgrade', 'websocket']];

/**
 * Right after resolve-api: a plain HTTP request (no WebSocket upgrade) to a WS API is answered 426 Upgrade
 * Required through the `fault` sequence (code 400, a request error of the client), before any
 * authentication. WebSocket handshakes carry their terminal step and pass.
 */
export class UpgradeRequiredPhase implements GatewayPhase {
  readonly name = 'websocket-upgrade-required';

  onRequest(ctx: Call): PhaseResult {
    const api = ctx.api;
    if (api === null || api.def.type !== 'WS' || ctx.terminal !== null) return PhaseResult.CONTINUE;
    ctx.raise(GatewayError.UPGRADE_REQUIRED, {
      description: `${api.def.id} is a WebSocket API: open it with a WebSocket client (ws:// on the HTTP port, wss:// on the HTTPS port)`,
      headers: UPGRADE,
    });
    return PhaseResult.STOP;
  }
}
