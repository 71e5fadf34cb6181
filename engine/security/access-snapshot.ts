import type { ApplicationDefinition, KeyType, SubscriptionState, TokenType } from '../registry/types.js';

/**
 * What the gateway needs to authorize a call, taken from the applications in the store (both doors:
 * declarative files and the admin API): which application a consumer key belongs to, the application's
 * tier, and its subscriptions by API (`name:version`). Plain data, posted to io threads on every change.
 */
export interface AccessSnapshot {
  readonly generation: number;
  /** keyManager: the [[apim.jwt.issuer]] whose tokens the key stands for (absent: this key manager's). */
  readonly keys: Readonly<Record<string, { readonly app: string; readonly keyType: KeyType; readonly keyManager?: string }>>;
  readonly apps: Readonly<Record<string, {
    readonly owner: string;
    readonly tier: string;
    readonly tokenType: TokenType;
    readonly subscriptions: Readonly<Record<string, { readonly tier: string; readonly state: SubscriptionState }>>;
  }>>;
}

export function buildAccessSnapshot(apps: readonly ApplicationDefinition[], generation: number): AccessSnapshot {
  const keys: Record<string, { app: string; keyType: KeyType; keyManager?: string }> = {};
  const out: Record<string, AccessSnapshot['apps'][string]> = {};
  for (const a of apps) {
    for (const k of a.keys) keys[k.clientId] = { app: a.name, keyType: k.keyType, ...(k.keyManager ? { keyManager: k.keyManager } : {}) };
    const subscriptions: Record<string, { tier: string; state: SubscriptionState }> = {};
    for (const s of a.subscriptions) subscriptions[s.api] = { tier: s.throttlingPolicy, state: s.state };
    out[a.name] = { owner: a.owner, tier: a.throttlingPolicy, tokenType: a.tokenType, subscriptions };
  }
  return { generation, keys, apps: out };
}

/** Numbers the io thread's access views in the order they were made. */
let views = 0;

/** The io thread's view: Maps for lookups on the hot path. */
export class AccessIndex {
  /**
   * This view's number, unique on its thread: what a decision made under it remembers, instead of the
   * view itself, so that a remembered decision never keeps an old view's Maps alive.
   */
  readonly serial = ++views;
  readonly keys: ReadonlyMap<string, { readonly app: string; readonly keyType: KeyType; readonly keyManager?: string }>;
  readonly apps: ReadonlyMap<string, AccessSnapshot['apps'][string]>;

  constructor(s: AccessSnapshot) {
    this.keys = new Map(Object.entries(s.keys));
    this.apps = new Map(Object.entries(s.apps));
  }

  static empty(): AccessIndex {
    return new AccessIndex({ generation: 0, keys: {}, apps: {} });
  }
}
