import type { IoThreads } from './io-threads.js';

/**
 * A main-thread part of a gateway subsystem (throttling, subscriptions, revocations...): it contributes
 * shared state to the io threads' start and keeps it current afterwards. The io-thread side registers a
 * handler for the same keys on `GatewayThread.state`.
 */
export interface GatewayExtension {
  readonly name: string;
  /** Shared state (key -> structured-clone-safe value, SharedArrayBuffers shared) in every io thread's init. */
  initialState(): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The io threads run: push later changes with `threads.pushState(key, value)`. */
  started?(threads: IoThreads): void;
  stop?(): void | Promise<void>;
}
