/**
 * State the main thread owns and every io thread needs (policies, subscriptions, revocations, counters'
 * shared memory), delivered by key. A subsystem of the io thread registers a handler for its key; the main
 * thread sends the initial value with the thread's init data and later values by message
 * (IoThreads.pushState), each applied before the thread acknowledges it.
 */
export type StateHandler = (value: unknown) => void;

/** The shared state as a feature reads it: a handler per key, and the latest value. */
export interface SharedState {
  /** Registers the handler of a key and applies the value already received, if any. */
  on(key: string, handler: StateHandler): void;
  get(key: string): unknown;
}

export class SharedStateReceiver implements SharedState {
  private readonly handlers = new Map<string, StateHandler>();
  private readonly latest = new Map<string, unknown>();

  constructor(initial: Readonly<Record<string, unknown>>) {
    for (const [k, v] of Object.entries(initial)) this.latest.set(k, v);
  }

  /** Registers the handler of a key and applies the value already received, if any. */
  on(key: string, handler: StateHandler): void {
    this.handlers.set(key, handler);
    if (this.latest.has(key)) handler(this.latest.get(key));
  }

  apply(key: string, value: unknown): void {
    this.latest.set(key, value);
    this.handlers.get(key)?.(value);
  }

  get(key: string): unknown {
    return this.latest.get(key);
  }
}
