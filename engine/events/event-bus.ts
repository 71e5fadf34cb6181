/**
 * Events between the roles of one node (and, through the event hub, between nodes): the seed's Events
 * table. Publishing resolves once every local subscriber has applied the event, which is how a revocation
 * reaches every gateway io thread before the revocation call returns.
 */

/** An access token (and, by extension, its refresh token) stopped being valid. */
export interface TokenRevokedEvent {
  readonly type: 'token.revoked';
  /** JWT access tokens: the `jti` claim. Opaque tokens: base64url SHA-256 of the token text. */
  readonly tokenId: string;
  readonly tokenType: 'JWT' | 'OPAQUE';
  /** When the token would have expired (ms since epoch): the revocation can be forgotten after it. */
  readonly expiresAt: number;
  readonly consumerKey: string;
  readonly revokedAt: number;
}

/** Something in the registry (APIs, applications, subscriptions, policies, block conditions) changed. */
export interface RegistryChangedEvent {
  readonly type: 'registry.changed';
  readonly kind: 'apis' | 'applications' | 'policies' | 'sequences';
  /** Monotonic revision of that kind after the change. */
  readonly revision: number;
}

/**
 * A throttle decision (seed 000 Events): a throttle key reached its limit for a window on some node. Also
 * published on the Redis channel named by [apim.throttling] jms.destination when Redis is configured.
 */
export interface ThrottleDecisionEvent {
  readonly type: 'throttle.decision';
  /** [apim.throttling] jms.destination (default throttleData). */
  readonly topic: string;
  /** The node that decided (host:pid:id). */
  readonly node: string;
  /** The throttle key (level, API, application, user, policy...; parts separated by U+001F). */
  readonly key: string;
  readonly level: 'api' | 'resource' | 'subscription' | 'burst' | 'application' | 'custom' | 'hard';
  readonly policy: string;
  /** The throttle code (900800 to 900807). */
  readonly code: number;
  /** false: the quota is reached but the policy lets calls pass (stop_on_quota_reach = false). */
  readonly throttled: boolean;
  readonly limit: number;
  /** ms since the epoch when the window frees. */
  readonly until: number;
  readonly decidedAt: number;
  readonly api?: string;
  readonly application?: string;
  readonly user?: string;
}

export type SluiceEvent = TokenRevokedEvent | RegistryChangedEvent | ThrottleDecisionEvent;
export type EventType = SluiceEvent['type'];
export type EventOf<T extends EventType> = Extract<SluiceEvent, { type: T }>;
export type EventHandler<T extends EventType> = (event: EventOf<T>) => void | Promise<void>;

export interface EventBus {
  /** Resolves when every subscriber has handled the event (rejects if one fails). */
  publish<T extends EventType>(event: EventOf<T>): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe<T extends EventType>(type: T, handler: EventHandler<T>): () => void;
}

/** The in-process bus: subscribers are called in order of subscription, awaited together. */
export class LocalEventBus implements EventBus {
  private readonly handlers = new Map<EventType, Set<(event: SluiceEvent) => void | Promise<void>>>();

  async publish<T extends EventType>(event: EventOf<T>): Promise<void> {
    const set = this.handlers.get(event.type);
    if (!set || set.size === 0) return;
    await Promise.all([...set].map((h) => h(event)));
  }

  subscribe<T extends EventType>(type: T, handler: EventHandler<T>): () => void {
    let set = this.handlers.get(type);
    if (!set) { set = new Set(); this.handlers.set(type, set); }
    const h = handler as unknown as (event: SluiceEvent) => void | Promise<void>;
    set.add(h);
    return () => { set!.delete(h); };
  }
}
