/**
 * WebSocket close codes (RFC 6455 §7.4) the relay sends, and the rule for passing a peer's code on.
 * docs/websocket.md has the table of who gets what.
 */
export const CloseCode = {
  NORMAL: 1000,
  /** The other side is going away: a client that vanished, a gateway that stops. */
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 1002,
  /** Not sent on the wire: the close frame had no code. */
  NO_STATUS: 1005,
  /** Not sent on the wire: the connection dropped without a close frame. */
  ABNORMAL: 1006,
  /** A policy refused the connection: the access token expired or was revoked mid-session. */
  POLICY_VIOLATION: 1008,
  MESSAGE_TOO_BIG: 1009,
  /** The backend connection failed or dropped mid-session. */
  INTERNAL_ERROR: 1011,
  /** The backend is not reading: more than max_buffered_bytes wait for it. */
  TRY_AGAIN_LATER: 1013,
  /** Sluice's: a message over a throttling limit, with throttle_action = "close" (like HTTP 429). */
  THROTTLED: 4429,
} as const;

/** Whether a code may be put in a close frame (ws' rule: 1000-1014 except 1004-1006, and 3000-4999). */
export function sendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** A close reason fits in a control frame: at most 123 bytes of UTF-8, cut on a character boundary. */
export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > 123) break;
    out += ch;
  }
  return out;
}
