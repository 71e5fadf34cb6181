import type { Config } from '../../conf/config.js';
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
  /**
   * The same keys, current, for an io thread restarted after a failure (engine/runtime/io-threads.ts).
   * Needed when `initialState` has side effects that must happen once (watchers, channels); without it,
   * `initialState` is called again.
   */
  currentState?(): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The io threads run: push later changes with `threads.pushState(key, value)`. */
  started?(threads: IoThreads): void;
  /**
   * deployment.toml was re-read (SIGHUP, engine/operations/reload.ts). Sections listed in `liveSections`
   * (`apim.cors`...) are the extension's to apply live, here; changes elsewhere are reported as needing a
   * restart unless another part takes them.
   */
  readonly liveSections?: readonly string[];
  reload?(config: Config): void | Promise<void>;
  stop?(): void | Promise<void>;
}
