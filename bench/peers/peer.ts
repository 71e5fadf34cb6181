import type { ChildProcess } from 'node:child_process';
import { stopTracked } from '../lib/products.js';

/** The proxies `npm run bench` compares, in the order its tables show them. */
export const PROXIES = ['direct', 'nginx', 'haproxy', 'fastify', 'floor', 'sluice'] as const;
export type ProxyId = (typeof PROXIES)[number];

/**
 * A proxy under measurement, started by the bench and stopped by it. `direct` is the backend itself, so
 * its CPU figures are the backend's.
 */
export interface Peer {
  readonly id: ProxyId;
  /** The processes whose CPU a call is charged with: each and every process below it. */
  readonly pids: readonly number[];
  /** Prefix of the pass-through side: the bench calls `${passThrough}/x`. */
  readonly passThrough: string;
  /** Prefix of the secured side (RS256 bearer JWT, exp checked, a per-client rate limit), when it has one. */
  readonly secured?: string;
  stop(): Promise<void>;
}

export { NEVER_TRIPPING_LIMIT } from '../lib/products.js';

/** A Peer for a process the bench started: its CPU is its own and its children's. */
export function trackedPeer(id: ProxyId, c: ChildProcess, passThrough: string, secured?: string): Peer {
  return { id, pids: [c.pid!], passThrough, ...(secured ? { secured } : {}), stop: () => stopTracked(c) };
}
