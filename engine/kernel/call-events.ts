import diagnostics from 'node:diagnostics_channel';
import type { Call } from './call.js';

/**
 * The gateway publishes each finished call on a named channel (the hook features listen to); metrics, the
 * access log, analytics, tracing and bandwidth throttling subscribe. Nothing is built or sent when nobody
 * listens. The message is the call (engine/gateway/message-context.ts); a subscriber reads it, never keeps it.
 */
export const callChannel = diagnostics.channel('sluice:gateway:call');

export function hasCallSubscribers(): boolean {
  return callChannel.hasSubscribers;
}

export function publishCall(call: Call): void {
  callChannel.publish(call);
}
