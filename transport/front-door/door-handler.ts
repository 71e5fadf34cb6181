import type { ClientExchange } from './client-exchange.js';
import type { DoorRefusal } from './refusals.js';

/** What the gateway does with what passes the door. */
export interface DoorHandler {
  /** A request passed the door and is the connection's active exchange: answer it. */
  onRequest(x: ClientExchange): void;
  /** A request was refused at the door: answer `r` through `x` (the connection closes after the answer). */
  onRefused(x: ClientExchange, r: DoorRefusal): void;
  /** A WebSocket upgrade request, active: run the handshake, then `conn.upgrade()` or answer through `x`. */
  onUpgrade(x: ClientExchange): void;
}
