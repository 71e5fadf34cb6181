import type { Call } from './call.js';

/**
 * The gateway publishes each finished call to the listeners features add here (the hook they listen to);
 * metrics, the access log, analytics, tracing and bandwidth throttling do. Nothing is built or sent when
 * nobody listens. The message is the call (engine/gateway/message-context.ts); a listener reads it, never
 * keeps it.
 *
 * A plain list, not node:diagnostics_channel: the io thread publishes once per call, and a channel's
 * `publish` (shared by every channel in the process, so its property loads are megamorphic) cost about 0.6%
 * of the secured path's CPU in a perf profile. Nothing outside Sluice subscribed: the channel lives in a
 * worker thread that no other code reaches.
 */
export type CallListener = (call: Call) => void;

const listeners: CallListener[] = [];

/** Adds `fn` (once: adding it again changes nothing). */
export function subscribeCalls(fn: CallListener): void {
  if (!listeners.includes(fn)) listeners.push(fn);
}

export function unsubscribeCalls(fn: CallListener): void {
  const i = listeners.indexOf(fn);
  if (i >= 0) listeners.splice(i, 1);
}

export function hasCallSubscribers(): boolean {
  return listeners.length !== 0;
}

/**
 * Hands the call to every listener. One that throws does not keep the call from the others, nor unwind the
 * call's end: its error is thrown again on the next tick, as an uncaught exception of the thread (what a
 * diagnostics channel did).
 */
export function publishCall(call: Call): void {
  for (let i = 0; i < listeners.length; i++) {
    try {
      listeners[i]!(call);
    } catch (err) {
      process.nextTick(rethrow, err);
    }
  }
}

function rethrow(err: unknown): never {
  throw err;
}
