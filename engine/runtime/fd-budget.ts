import fs from 'node:fs';
import type { Config } from '../../conf/config.js';
import { passthruView, servletView } from '../../conf/typed-config.js';
import type { Logger } from '../log/logger.js';

/** File descriptors kept for everything but client connections: files, logs, stores, DNS, worker threads. */
const RESERVE = 256;

/** The process's open-file limit (`ulimit -n`, as node raised it at start), from /proc; undefined elsewhere. */
export function openFileLimit(text?: string): number | undefined {
  let limits = text;
  if (limits === undefined) {
    try { limits = fs.readFileSync('/proc/self/limits', 'utf8'); } catch { return undefined; }
  }
  const m = /^Max open files\s+(\d+|unlimited)\s+/m.exec(limits);
  if (!m) return undefined;
  return m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}

export interface FdBudget {
  readonly limit: number;
  /** The servlet ports' maxConnections together. */
  readonly servlet: number;
  /** Gateway connections the limits allow: a client socket and a backend socket per call; -1: no limit set. */
  readonly gateway: number;
  readonly problems: readonly string[];
}

/**
 * Whether the connection limits fit the file descriptor limit: the servlet ports may hold no more than half
 * of it, so that a flood of slow requests on them (each a held descriptor) leaves the gateway its clients
 * and backends; with [passthru_http] max_open_connections set, all of it must fit with a reserve.
 */
export function fdBudget(config: Config, limit: number): FdBudget {
  const s = servletView(config);
  const servlet = s.http.maxConnections + s.https.maxConnections;
  const maxOpen = passthruView(config).maxOpenConnections;
  const gateway = maxOpen < 0 ? -1 : 2 * maxOpen;
  const problems: string[] = [];
  if (servlet > limit / 2) {
    problems.push(`the servlet ports may hold ${servlet} connections ([transport.http(s).properties] maxConnections), more than half of the ${limit} file descriptors this process may open: lower maxConnections or raise ulimit -n`);
  }
  if (gateway >= 0 && servlet + gateway + RESERVE > limit) {
    problems.push(`the servlet ports (${servlet}) and the gateway's calls ([passthru_http] max_open_connections ${maxOpen}, a client and a backend connection each) with ${RESERVE} descriptors for files need more than the ${limit} this process may open: lower them or raise ulimit -n`);
  }
  return { limit, servlet, gateway, problems };
}

/** Logs a warning at start when the connection limits do not fit `ulimit -n`. */
export function warnWhenFdsDoNotFit(config: Config, log: Logger): void {
  const limit = openFileLimit();
  if (limit === undefined || !Number.isFinite(limit)) return;
  for (const p of fdBudget(config, limit).problems) log.warn({ openFileLimit: limit }, p);
}
