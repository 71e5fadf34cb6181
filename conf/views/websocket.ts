import type { Config } from '../config.js';
import type { StoreView } from './tls.js';

/** One WebSocket sender ([transport.ws] for ws:// backends, [transport.wss] for wss://). */
export interface WsSenderView {
  /**
   * Whether backends of this scheme may be reached. The catalog's default is false, but Sluice's WebSocket
   * sender is built in: only an explicit `sender.enable = false` turns it off (docs/websocket.md).
   */
  readonly enabled: boolean;
  /** sender.parameters.ws.outflow.dispatch.sequence: run on backend -> client messages when deployed. */
  readonly outflowSequence: string;
  /** sender.parameters.ws.outflow.dispatch.fault.sequence: run when a dispatch sequence fails. */
  readonly faultSequence: string;
}

/** [sluice.websocket] and the [transport.ws] / [transport.wss] sender keys. Plain data. */
export interface WebSocketView {
  readonly ws: WsSenderView;
  readonly wss: WsSenderView;
  /** [transport.wss] sender.trust_store: CAs for wss:// backends; absent: the pass-through sender's. */
  readonly wssTrustStore: StoreView | undefined;
  readonly maxMessageSize: number;
  /** Seconds; 0: no idle timeout. */
  readonly idleTimeoutSec: number;
  readonly highWaterMark: number;
  readonly maxBufferedBytes: number;
  readonly closeTimeoutMs: number;
  readonly queryToken: boolean;
  readonly throttleAction: 'close' | 'drop';
}

export function websocketView(config: Config): WebSocketView {
  const idleMs = config.get('sluice.websocket.idle_timeout');
  // Checked by a once-a-second sweep: 8..960 s keeps the documented range of earlier versions.
  const idleTimeoutSec = idleMs <= 0 ? 0 : Math.min(960, Math.max(8, Math.round(idleMs / 1000)));
  const enabled = (path: 'transport.ws.sender.enable' | 'transport.wss.sender.enable'): boolean =>
    !(config.isWritten(path) && config.get(path) === false);
  const location = config.get('transport.wss.sender.trust_store.location');
  const maxMessageSize = config.get('sluice.websocket.max_message_size');
  return {
    ws: {
      enabled: enabled('transport.ws.sender.enable'),
      outflowSequence: config.get('transport.ws.sender.parameters.ws.outflow.dispatch.sequence'),
      faultSequence: config.get('transport.ws.sender.parameters.ws.outflow.dispatch.fault.sequence'),
    },
    wss: {
      enabled: enabled('transport.wss.sender.enable'),
      outflowSequence: config.get('transport.wss.sender.parameters.ws.outflow.dispatch.sequence'),
      faultSequence: config.get('transport.wss.sender.parameters.ws.outflow.dispatch.fault.sequence'),
    },
    wssTrustStore: location ? {
      file: config.home.resolve(location),
      type: undefined,
      password: config.get('transport.wss.sender.trust_store.password'),
      keyPassword: undefined,
    } : undefined,
    maxMessageSize,
    idleTimeoutSec,
    highWaterMark: config.get('sluice.websocket.high_water_mark'),
    // Never below one whole message: a single maximal message must fit.
    maxBufferedBytes: Math.max(config.get('sluice.websocket.max_buffered_bytes'), maxMessageSize + 65536),
    closeTimeoutMs: config.get('sluice.websocket.close_timeout'),
    queryToken: config.get('sluice.websocket.query_token'),
    throttleAction: config.get('sluice.websocket.throttle_action') === 'drop' ? 'drop' : 'close',
  };
}
