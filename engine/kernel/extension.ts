import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import type { SharedState } from './shared-state.js';

/**
 * How a feature of the gateway (security, throttling, WebSocket, telemetry) plugs in. A feature has two
 * halves:
 * - on the main thread, a GatewayExtension: it owns the feature's state (policies, subscriptions, revoked
 *   tokens, counters), sends it to every io thread at start and keeps it current by key;
 * - on each io thread, its phases (contributed to the phase list, engine/gateway/phase-list.ts) and hooks:
 *   handlers of its shared-state keys, the call listeners (kernel/call-events.ts), messages to its main half.
 *   An io-thread half gets a FeatureHost and nothing more of the thread.
 * Neither half imports the gateway or the runtime: they import this file, and the gateway and the runtime
 * provide what it declares.
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
  started?(threads: ExtensionThreads): void;
  /**
   * deployment.toml was re-read (SIGHUP, engine/operations/reload.ts). Sections listed in `liveSections`
   * (`apim.cors`...) are the extension's to apply live, here; changes elsewhere are reported as needing a
   * restart unless another part takes them.
   */
  readonly liveSections?: readonly string[];
  reload?(config: Config): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/** The io threads as an extension's main half sees them (engine/runtime/io-threads.ts implements it). */
export interface ExtensionThreads {
  /** Sends a new value of a shared-state key to every io thread; resolves once each has applied it. */
  pushState(key: string, value: unknown): Promise<void>;
  /** Messages the io-thread halves send to the main half named `name` (FeatureHost.notifyMain). */
  onExtensionMessage(name: string, handler: (payload: unknown, thread: number) => void): void;
}

/** What an io thread offers a feature's io-thread half (engine/gateway/gateway-thread.ts provides it). */
export interface FeatureHost {
  readonly log: Logger;
  /** The shared state the main halves send, by key: register a handler with `state.on(key, ...)`. */
  readonly state: SharedState;
  /** Sends a message to the main half of extension `name` (ExtensionThreads.onExtensionMessage). */
  notifyMain(name: string, payload: unknown): void;
}
