import diagnostics from 'node:diagnostics_channel';
import type { MessageContext } from './message-context.js';

/**
 * The gateway publishes each finished call on a named channel; metrics, the access log, analytics and
 * tracing subscribe. Nothing is built or sent when nobody listens.
 */
export const callChannel = diagnostics.channel('sluice:gateway:call');

export function hasCallSubscribers(): boolean {
  return callChannel.hasSubscribers;
}

export function publishCall(ctx: MessageContext): void {
  callChannel.publish(ctx);
}
