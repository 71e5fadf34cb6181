import type { Quota, TimeUnit } from '../registry/types.js';

/**
 * Fixed windows aligned to the epoch: a window of `ms` milliseconds starts at every multiple of `ms` since
 * 1970-01-01T00:00:00Z (a "min" window starts at hh:mm:00.000, a "day" window at 00:00 UTC). Every io thread
 * and every node computes the same window number from its clock, so counts of one window meet in one
 * counter; nodes need synchronised clocks (NTP).
 */
export const UNIT_MS: Readonly<Record<TimeUnit, number>> = { sec: 1000, min: 60_000, hour: 3_600_000, day: 86_400_000 };

const ALIASES: Readonly<Record<string, TimeUnit>> = {
  s: 'sec', sec: 'sec', secs: 'sec', second: 'sec', seconds: 'sec',
  m: 'min', min: 'min', mins: 'min', minute: 'min', minutes: 'min',
  h: 'hour', hr: 'hour', hour: 'hour', hours: 'hour',
  d: 'day', day: 'day', days: 'day',
};

/** `sec`, `second`, `minutes`, `h`... -> the unit; undefined when unknown. */
export function timeUnitOf(text: string): TimeUnit | undefined {
  return ALIASES[text.trim().toLowerCase()];
}

export function windowMs(q: Quota): number {
  return q.unitTime * UNIT_MS[q.timeUnit];
}

/** The limit of a quota: requests, or bytes. */
export function quotaLimit(q: Quota): number {
  return q.bandwidthBytes ?? q.requests ?? 0;
}

/** Requests per millisecond, to order policies from the most to the least restrictive. */
export function quotaRate(q: Quota): number {
  return (q.requests ?? Number.POSITIVE_INFINITY) / windowMs(q);
}
