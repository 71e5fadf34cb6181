import type { AuthenticationView } from '../../conf/views/keymanager.js';
import { IpSet, parseIp, throttleAddress, type Ip } from '../throttling/ip.js';
import { TooManyFailuresError } from './errors.js';

/** Identities with failures remembered at most; the oldest are forgotten first (a flood of made-up ids). */
const MAX_ENTRIES = 100_000;

interface Failures {
  count: number;
  /** ms since the epoch. */
  last: number;
  lockedUntil: number;
}

/**
 * Back-off after failed authentication, per identity (a client id or a user name) and client address:
 * `freeFailures` failures are free, then each attempt waits `backoffBase` doubled per further failure, up to
 * `backoffMax`. While an identity is backed off from an address, its attempts from there are answered 429
 * with Retry-After before any secret is checked (no hashing); the same identity from other addresses, and
 * other identities, are served as usual. A success forgets the failures; so does `backoffMax` without one.
 */
export class AuthBackoff {
  private readonly entries = new Map<string, Failures>();
  private readonly trusted: IpSet;
  /** Attempts refused while backed off, since start (metrics). */
  refused = 0;
  /** Failed authentications, since start (metrics). */
  failures = 0;

  constructor(private readonly view: AuthenticationView, private readonly now: () => number = Date.now) {
    try {
      this.trusted = IpSet.parse(view.trustedProxies);
    } catch (err) {
      throw new Error(`[sluice.authentication] trusted_proxies: ${(err as Error).message}`);
    }
  }

  /**
   * The address failures are counted by: the TCP peer, or, when the peer is a trusted proxy (the gateway's
   * /token front), the client its X-Forwarded-For names (read from the right, as for throttling).
   */
  addressOf(peer: string, forwardedFor: string | undefined): string {
    const ip = throttleAddress(parseIp(peer), forwardedFor, this.trusted);
    return ip === null ? peer : ipKey(ip);
  }

  /**
   * Runs one authentication of `id` from `from`: refused with TooManyFailuresError (an OAuth error, 429)
   * while backed off; `verify` resolves the authenticated subject, or undefined for wrong credentials.
   */
  async attempt<T>(id: string, from: string, verify: () => Promise<T | undefined>, error: 'invalid_client' | 'invalid_grant' = 'invalid_client'): Promise<T | undefined> {
    const key = `${id}\u0000${from}`;
    const now = this.now();
    let e = this.entries.get(key);
    if (e && now - e.last > this.view.backoffMax) { this.entries.delete(key); e = undefined; }
    if (e && e.lockedUntil > now) {
      this.refused++;
      throw new TooManyFailuresError(error, Math.ceil((e.lockedUntil - now) / 1000));
    }
    const subject = await verify();
    if (subject !== undefined) {
      if (e) this.entries.delete(key);
      return subject;
    }
    this.failures++;
    const t = this.now();
    if (!e) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      e = { count: 0, last: t, lockedUntil: 0 };
    } else {
      // Re-inserted: the map's order stays oldest-first for eviction.
      this.entries.delete(key);
    }
    e.count++;
    e.last = t;
    const over = e.count - this.view.freeFailures;
    if (over > 0) e.lockedUntil = t + Math.min(this.view.backoffMax, this.view.backoffBase * 2 ** Math.min(over - 1, 30));
    this.entries.set(key, e);
    return undefined;
  }

  /** Identities and addresses with failures remembered. */
  get size(): number {
    return this.entries.size;
  }
}

function ipKey(ip: Ip): string {
  return ip.v === 4 ? `4:${ip.n}` : `6:${ip.n.toString(16)}`;
}
