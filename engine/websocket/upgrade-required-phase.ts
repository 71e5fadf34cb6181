import type { MessageContext } from '../gateway/message-context.js';
import { PhaseResult, type GatewayPhase } from '../gateway/phase.js';

/**
 * Right after resolve-api: a plain HTTP request (no WebSocket upgrade) to a WS API is answered 426 Upgrade
 * Required through the `fault` sequence (code 400, a request error of the client), before any
 * authentication. WebSocket handshakes carry their terminal step and pass.
 */
export class UpgradeRequiredPhase implements GatewayPhase {
  readonly name = 'websocket-upgrade-required';

  onRequest(ctx: MessageContext): PhaseResult {
    const api = ctx.api;
    if (api === null || api.def.type !== 'WS' || ctx.terminal !== null) return PhaseResult.CONTINUE;
    ctx.fault({
      code: 400, status: 426, message: 'Upgrade Required',
      description: `${api.def.id} is a WebSocket API: open it with a WebSocket client (ws:// on the HTTP port, wss:// on the HTTPS port)`,
      sequence: 'fault',
      headers: [['Upgrade', 'websocket']],
    });
    return PhaseResult.STOP;
  }
}
