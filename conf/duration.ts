/**
 * Durations in deployment.toml come as "2m", "15 minutes", "3m", "120000ms", "30d", "200s" or a bare number
 * of milliseconds (600000, "600000"). This is the one place that reads them; everything downstream holds ms.
 */
const UNIT_MS: Record<string, number> = {
  ms: 1, millis: 1, millisecond: 1, milliseconds: 1,
  s: 1_000, sec: 1_000, secs: 1_000, second: 1_000, seconds: 1_000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
};

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/;

/** Milliseconds for a duration value, or undefined when it is not one. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  if (typeof value === 'bigint') return value >= 0n ? Number(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const m = DURATION.exec(value);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const factor = unit === '' ? 1 : UNIT_MS[unit];
  if (factor === undefined) return undefined;
  return Math.round(Number(m[1]) * factor);
}

/** "90000" -> "1m 30s": for log lines and check-config output. */
export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0 && ms > 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0 && ms > 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
